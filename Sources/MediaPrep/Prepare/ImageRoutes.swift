import FoundationEssentials
import Glibc
import UploadPlanner

/// Images: kept, encoded to the budget, split into an album, or an animation made a GIF.
extension AttachmentPreparer {
    func prepareImage(_ source: consuming ProbedSource, keep: PrepareRoute?, _ item: inout PreparedItem) throws {
        try record(try imagePreparer.prepare(source: consume source, keep: keep), &item)
    }

    /// Each part staged under the next name and checked like any image; if one fails, none is sent.
    func splitImage(_ source: ProbedSource, _ ranges: [Range<Int>], _ item: inout PreparedItem) throws {
        let prepared = try imagePreparer.prepareParts(source: source, ranges: ranges)
        var items: [PreparedItem] = []
        do {
            for (i, p) in prepared.enumerated() {
                var part = PreparedItem(input: item.input, kind: .image)
                (part.format, part.reasons) = (item.format, item.reasons)
                try record(p, &part, suffix: prepared.count > 1 ? "_part\(i + 1)" : "")
                part.part = (i + 1, prepared.count)
                items.append(part)
            }
        } catch {
            for it in items {
                it.staged?.discard()
                if let out = it.output { unlink(out) }  // named already (not staging): taken back
            }
            throw error
        }
        guard var first = items.first else { throw MediaPrepError(.decodeFailed, "no part to send") }
        first.parts = Array(items.dropFirst())
        item = first
    }

    func record(_ p: PreparedImage, _ item: inout PreparedItem, suffix: String = "") throws {
        let ext = p.format == .png ? "png" : "jpg"
        try Trace.time("write output") {
            try place(&item, try OutputWriter.stage(p.data, directory: outputDirectory, base: name(.image) + suffix, ext: ext,
                                                    cancellation: cancellation), size: p.data.count)
        }
        item.bytes = p.data.count
        (item.width, item.height) = (p.width, p.height)
        item.preview = p.preview
        item.format = p.format == .png ? .png : .jpeg
        item.quality = p.quality
        if let q = p.quality {
            item.reasons.append("JPEG quality \(q) at \(p.width)×\(p.height): the best the budget search found within \(profile.maxBytes.formatted) bytes")
        }
        item.route = p.route
        item.flattenedOnto = p.flattenedOnto
        item.autoReceive = p.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: p.preview)
    }

    func sendAnimated(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        let probe = source.probe
        let first = try source.firstFrame
            ?? FFmpegImageDecoder.decode(path: probe.path, format: probe.format, options: DecodeOptions(maxPixels: maxPixels)).image
        let preview = try PreviewMaker.make(from: first.pixels, maxLength: profile.previewMaxLength)
        // Its own frames, without comments or XMP (read whole only when the plan saw any).
        if source.metadata.map({ !$0.isEmpty }) == true, let data = source.data, let stripped = GIFStripper.strip(data), !stripped.isUnchanged {
            try place(&item, try OutputWriter.stage(stripped.data, directory: outputDirectory, base: name(.animatedImage), ext: "gif",
                                                    cancellation: cancellation), size: stripped.data.count)
            item.route = .stripped
            item.bytes = stripped.data.count
        } else {
            try copy(probe, nil, &item, base: name(.animatedImage), ext: "gif")
        }
        (item.width, item.height) = (probe.width, probe.height)
        item.preview = preview
        item.autoReceive = probe.bytes <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: preview)
    }

    /// Made a GIF within the image budget; when even the smallest try is over it, the whole-size GIF
    /// goes (recipients accept it as they would a large GIF).
    func encodeAnimation(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        guard let animation = source.animation else { throw MediaPrepError(.decodeFailed, "no animation to encode") }
        let first = try source.firstFrame?.pixels ?? animation.firstFrame()
        let preview = try PreviewMaker.make(from: first, maxLength: profile.previewMaxLength)
        try cancellation?.check()
        let made = try AnimationBudget.fit(MeteredAnimation(animation, cancellation: cancellation), maxBytes: profile.maxBytes, autoReceiveBytes: limits.maxImageSizeAutoReceive,
                                           maxPixels: profile.maxSentPixels)
        try Trace.time("write output") {
            try place(&item, try OutputWriter.stage(made.gif.data, directory: outputDirectory, base: name(.animatedImage), ext: "gif",
                                                    cancellation: cancellation), size: made.gif.data.count)
        }
        (item.width, item.height, item.bytes) = (made.gif.width, made.gif.height, made.gif.data.count)
        item.format = .gif
        item.preview = preview
        item.route = .encoded
        item.autoReceive = made.gif.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: preview)
    }
}
