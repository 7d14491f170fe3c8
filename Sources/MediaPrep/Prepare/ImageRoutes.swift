import FoundationEssentials
import Glibc
import UploadPlanner

/// Images: kept, encoded to the budget, split into an album, or an animation made a GIF.
extension AttachmentPreparer {
    func prepareImage(_ source: consuming ProbedSource, keep: PrepareRoute?) throws -> Produced {
        try stage(try imagePreparer.prepare(source: consume source, keep: keep))
    }

    /// Each part staged under the next name and checked like any image; if one fails, none is sent.
    func splitImage(_ source: ProbedSource, _ ranges: [Range<Int>]) throws -> [Produced] {
        let prepared = try imagePreparer.prepareParts(source: source, ranges: ranges)
        var made: [Produced] = []
        do {
            for (i, p) in prepared.enumerated() { made.append(try stage(p, suffix: prepared.count > 1 ? "_part\(i + 1)" : "")) }
        } catch {
            for m in made { m.staged.discard() }
            throw error
        }
        return made
    }

    func stage(_ p: PreparedImage, suffix: String = "") throws -> Produced {
        let ext = p.format == .png ? "png" : "jpg"
        let staged = try Trace.time("write output") {
            try OutputWriter.stage(p.data, directory: outputDirectory, base: name(.image) + suffix, ext: ext, cancellation: cancellation)
        }
        var made = Produced(staged: staged, bytes: p.data.count, format: p.format == .png ? .png : .jpeg, route: p.route,
                            shown: .picture(width: p.width, height: p.height, preview: p.preview),
                            autoReceive: p.data.count <= limits.maxImageSizeAutoReceive)
        (made.quality, made.flattenedOnto) = (p.quality, p.flattenedOnto)
        if let q = p.quality {
            made.notes = ["JPEG quality \(q) at \(p.width)×\(p.height): the best the budget search found within \(profile.maxBytes.formatted) bytes"]
        }
        return made
    }

    func sendAnimated(_ source: ProbedSource) throws -> Produced {
        let probe = source.probe
        let first = try source.firstFrame
            ?? FFmpegImageDecoder.decode(path: probe.path, format: probe.format, options: DecodeOptions(maxPixels: maxPixels)).image
        let preview = try PreviewMaker.make(from: first.pixels, maxLength: profile.previewMaxLength)
        // Its own frames, without comments or XMP (as the probe cut them).
        let (staged, bytes, route): (StagedFile, Int, PrepareRoute)
        if let stripped = source.strippedGIF {
            staged = try OutputWriter.stage(stripped, directory: outputDirectory, base: name(.animatedImage), ext: "gif", cancellation: cancellation)
            (bytes, route) = (stripped.count, .stripped)
        } else {
            (staged, bytes, route) = try copy(probe, nil, base: name(.animatedImage), ext: "gif")
        }
        return Produced(staged: staged, bytes: bytes, format: probe.format, route: route,
                        shown: .picture(width: probe.width ?? first.pixels.width, height: probe.height ?? first.pixels.height, preview: preview),
                        autoReceive: probe.bytes <= limits.maxImageSizeAutoReceive)
    }

    /// Made a GIF within the image budget; when even the smallest try is over it, the whole-size GIF
    /// goes (recipients accept it as they would a large GIF).
    func encodeAnimation(_ source: ProbedSource) throws -> Produced {
        guard let animation = source.animation else { throw MediaPrepError(.decodeFailed, "no animation to encode") }
        let first = try source.firstFrame?.pixels ?? animation.firstFrame()
        let preview = try PreviewMaker.make(from: first, maxLength: profile.previewMaxLength)
        try cancellation?.check()
        let made = try AnimationBudget.fit(MeteredAnimation(CachedAnimation(animation), cancellation: cancellation), maxBytes: profile.maxBytes, autoReceiveBytes: limits.maxImageSizeAutoReceive,
                                           maxPixels: profile.maxSentPixels, cancellation: cancellation)
        let gif = made.gif
        let staged = try Trace.time("write output") {
            try OutputWriter.stage(gif.data, directory: outputDirectory, base: name(.animatedImage), ext: "gif", cancellation: cancellation)
        }
        return Produced(staged: staged, bytes: gif.data.count, format: .gif, route: .encoded,
                        shown: .picture(width: gif.width, height: gif.height, preview: preview),
                        autoReceive: gif.data.count <= limits.maxImageSizeAutoReceive)
    }
}
