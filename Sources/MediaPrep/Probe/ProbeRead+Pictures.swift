/// The pictures' probes: each reads its header (a GIF, BMP or JPEG 2000 its first frame; a raw photo its
/// sensor's size), and leaves the pixels for `prepare`.
extension ProbeRead {
    mutating func jpeg() throws -> ProbedSource {
        // A motion photo's video follows the picture: its header says so, and then it is read whole.
        if !whole, MotionPhoto.claimed(head) { try readWhole() }
        // The frame header, read once from the file's start when only the start may be needed.
        var header: JPEGHeader? = nil
        if case .headers(let limit) = depth, size > limit {
            // Every segment sits before the first scan; a large Exif thumbnail can push the frame
            // header past the first 256 KiB, and then the whole file is read after all.
            header = try? JPEGHeader(head)
            if header == nil { try readWhole() }
        } else if case .preparing = depth, !whole {
            // Always shrunk on load: the decoder reads the rest from the file as it goes.
            header = try? JPEGHeader(head)
            if !(header.map(JPEGDecoder.isStreamed) ?? false) { try readWhole() }
        } else {
            try readWhole()
        }
        var s = try asFile(MediaProbe.still(head, isWhole: whole, &r, jpegHeader: header))
        if whole, let j = s.jpeg, let v = MotionPhoto.video(in: head, jpegEnd: j.tail?.end) { s.motionVideo = (v, motionSeconds(head, v)) }
        return s
    }

    mutating func png() throws -> ProbedSource {
        if let info = AnimationHeaders.apng(head), let (w, h) = PNGHeader.size(head) {
            // An APNG: FFmpeg's decoder composes its frames (blend and dispose ops).
            (r.kind, r.animated, r.frameCount, r.videoCodec) = (.animatedImage, true, info.frames, "apng")
            (r.width, r.height) = (w, h)
            r.hasAlpha = PNGHeader.mayHaveAlpha(head)
            var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
            try readWhole()  // its text and eXIf chunks may follow the frames
            try ContainerEnd.png(head)
            s.metadata = PictureMetadata(png: head)
            s.animation = try FFmpegAnimation(path: path, data: FFmpegAnimation.apngFrames(head), width: w, height: h,
                                              plays: info.plays, maxPixels: maxPixels)
            return s
        }
        switch depth {
        case .whole: try readWhole()
        case .preparing where !PNGHeader.isStreamed(head): try readWhole()
        default: break
        }
        return try asFile(MediaProbe.still(head, isWhole: whole, &r))
    }

    mutating func heif() throws -> ProbedSource {
        // The header only: the decode waits for `prepare`, inside the batch's pixel budget.
        try readWhole()
        try ContainerEnd.isoBMFF(head)
        let h = try HEIFDecoder.header(head, format: format, maxPixels: maxPixels)
        // An animated AVIF (browsers', `avifenc`'s): its frames through FFmpeg, as an APNG's are,
        // made a GIF. Its still stays what goes where the frames would lose something FFmpeg 5.1
        // cannot join or map: transparency (a second, auxiliary track) or HDR.
        if format == .avif, h.hdr == nil, !h.hasAlpha, h.orientation == .up, AnimationHeaders.avifSequence(head) {
            // Read from the bytes already read whole, here and in `prepare`: the file is read once.
            if let (frames, w, ht) = try FFmpegAnimation.singleTrack(data: head, path: path) {
                (r.kind, r.animated, r.frameCount, r.videoCodec) = (.animatedImage, true, frames, "av1")
                (r.width, r.height, r.hasAlpha) = (w, ht, false)
                var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
                s.metadata = h.metadata
                s.animation = try FFmpegAnimation(path: path, data: head, width: w, height: ht, plays: 0, maxPixels: maxPixels)
                return s
            }
        }
        (r.width, r.height) = h.orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
        (r.kind, r.frameCount, r.hasAlpha) = (.image, 1, h.hasAlpha)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil,
                             colour: h.colour.flatMap { SourceColour.inspect($0.profile, describedAs: $0.name) }, firstFrame: nil, media: nil)
        s.metadata = h.metadata
        s.hdr = h.hdr
        s.heifOrientation = h.orientation
        if let v = MotionPhoto.video(in: head, jpegEnd: nil) { s.motionVideo = (v, motionSeconds(head, v)) }
        return try asFile(s, orientation: h.orientation)
    }

    mutating func jxl() throws -> ProbedSource {
        try readWhole()
        if !head.starts(with: [0xFF, 0x0A]) { try ContainerEnd.isoBMFF(head) }  // the container; a bare codestream has no sizes
        let h = try JXLDecoder.header(head, maxPixels: maxPixels)
        (r.width, r.height) = (h.width, h.height)
        (r.kind, r.frameCount, r.hasAlpha) = (.image, 1, h.hasAlpha)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: SourceColour.inspect(h.iccProfile),
                             firstFrame: nil, media: nil)
        s.hdr = h.hdr?.transfer
        return try asFile(s)
    }

    mutating func animatedWebP() throws -> ProbedSource {
        // FFmpeg 5.1's WebP decoder has no animation: libwebpdemux composes the frames.
        try readWhole()
        try ContainerEnd.riff(head)
        let animation = try WebPAnimation(head, maxPixels: maxPixels) { w, h, frames in
            var claimed = r
            (claimed.width, claimed.height, claimed.frameCount) = (w, h, frames)
            try AnimationCost.checkDecodeCost(claimed)  // an animated WebP is always remade
        }
        let first = animation.firstFrame()
        (r.width, r.height, r.frameCount) = (animation.width, animation.height, animation.frameCount)
        (r.kind, r.animated, r.videoCodec) = (.animatedImage, true, format.rawValue)
        r.hasAlpha = AlphaOps.hasRealAlpha(first)
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil,
                             firstFrame: DecodedImage(pixels: first, format: format, sourceWidth: first.width,
                                                      sourceHeight: first.height, orientation: .up), media: nil)
        s.animation = animation
        s.metadata = PictureMetadata(webp: head)
        return s
    }

    mutating func webp() throws -> ProbedSource {
        // Its EXIF and XMP may follow the image: read whole. Only the header is parsed here; the
        // decode waits for `prepare`, which knows the size it needs (shrink-on-load).
        try readWhole()
        try ContainerEnd.riff(head)
        let h = try WebPDecoder.header(head)
        (r.width, r.height, r.hasAlpha) = (h.width, h.height, h.hasAlpha)
        (r.kind, r.frameCount) = (.image, 1)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: SourceColour.inspect(WebPChunks.iccProfile(head)),
                             firstFrame: nil, media: nil)
        s.webp = h
        let m = PictureMetadata(webp: head)
        if !m.isEmpty { s.metadata = m }
        return try asFile(s)
    }

    /// A GIF read whole (comments and XMP may sit anywhere in it): one the file's end cuts is
    /// refused, as is one whose frames ask too much to decode.
    mutating func checkGIF() throws -> GIFBlocks.Walk? {
        try readWhole()
        // FFmpeg drops a frame the file's end cuts and plays the rest: it would go as if whole.
        let walk = GIFBlocks.walk(head)
        if let walk, case .cut(let at) = walk.end {
            throw MediaPrepError(.truncated, "the GIF is cut off: its block at byte \(at) (after \(walk.frames) complete frame\(walk.frames == 1 ? "" : "s")) runs past the end of the file, \(head.count) bytes")
        }
        // One that every profile remakes (a loop over the frame pixels a phone is asked to decode)
        // and that asks too much for it is refused before its first frame is decoded (a 6 KB GIF of
        // 255 frames of a 4096² screen cost 243 MB first).
        if let walk, head.count >= 10 {
            var claimed = r
            (claimed.width, claimed.height, claimed.frameCount) = (Bytes.le(head, 6, 2), Bytes.le(head, 8, 2), walk.frames)
            if AnimationCost.loopPixels(claimed) > AnimationCost.maxSentFramePixels {
                try AnimationCost.checkDecodeCost(claimed)
            }
        }
        return walk
    }

    /// A raw photo as LibRaw opens it (its sizes alone; `prepare` demosaics it), as `r.format` says it is.
    mutating func raw() throws -> ProbedSource {
        try readWhole()
        // From headers alone (`check`), the sensor data is read too: what `prepare` will decode.
        var headersOnly = false
        if case .headers = depth { headersOnly = true }
        let header = try RawDecoder.header(head, maxPixels: maxPixels, readSamples: headersOnly)
        (r.width, r.height) = header.displaySize
        (r.kind, r.frameCount, r.hasAlpha, r.orientation, r.videoCodec) = (.image, 1, false, .up, r.format.rawValue)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        s.raw = header
        return try asFile(s)
    }
    /// No rewrite takes a maker's raw apart (its Exif, GPS and serial sit in maker boxes and IFDs):
    /// it leaves as LibRaw's pixels, or not at all.
    mutating func cameraRaw() throws -> ProbedSource {
        r.format = .cameraRaw
        do {
            return try raw()
        } catch let e as MediaPrepError where [.codecUnavailable, .unsupportedFormat, .decodeFailed].contains(e.code) {
            throw MediaPrepError(e.code, "a camera raw photo that cannot be shown here (\(e.message)): not sent, since its camera's metadata (GPS, serial number) could not be taken out")
        }
    }

    mutating func decodedByOthers() throws -> ProbedSource {
        let gif = format == .gif ? try checkGIF() : nil
        if format == .cameraRaw { return try cameraRaw() }
        let d: FFmpegImageDecoder.Result
        do {
            if format == .tiff {
                // Its tags alone: nothing is decoded, or allocated for the pixels, before the plan accepts it
                // (a 12 KB 10000×10000 1-bit TIFF took 686 MB in `check`).
                let h = try TIFFDecoder.header(file, maxPixels: maxPixels)
                (r.width, r.height) = h.orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
                (r.kind, r.frameCount, r.orientation, r.hasAlpha, r.videoCodec) = (.image, 1, h.orientation, h.mayHaveAlpha, format.rawValue)
                var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: SourceColour.inspect(h.iccProfile),
                                     firstFrame: nil, media: nil)
                s.tiff = h
                return try asFile(s, orientation: h.orientation)
            }
            d = try FFmpegImageDecoder.decode(path: path, format: format, options: DecodeOptions(maxPixels: maxPixels),
                                              countFrames: format == .gif)
        } catch let e as MediaPrepError where e == TIFFDecoder.cameraRaw {
            return try cameraRaw()
        } catch let e as MediaPrepError where e == TIFFDecoder.rawOnly {
            // Sensor data alone: demosaiced by LibRaw (its pixels are all that leaves). Where LibRaw is
            // missing or does not take its layout, the DNG goes as a document, its camera, dates and GPS
            // zeroed in place; damaged (LibRaw's data errors, a crash of its process, too few bytes for
            // its sensor) it is refused.
            do {
                return try raw()
            } catch let why as MediaPrepError where ![.corrupt, .truncated, .timeout, .outOfMemory].contains(why.code) {
                r.kind = .file
                var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
                s.rewrite = MetadataRewrite.picture(head, jpeg: nil, orientation: .up)
                s.sentAsFileBecause = "a DNG of raw sensor data only, with no preview to show: sent as a file (\(why.message))"
                return s
            }
        }
        r.animated = d.frameCount > 1
        r.kind = r.animated ? .animatedImage : .image
        (r.width, r.height, r.orientation) = (d.image.displayWidth, d.image.displayHeight, d.image.orientation)
        r.frameCount = d.frameCount
        r.videoCodec = format.rawValue
        r.hasAlpha = AlphaOps.hasRealAlpha(d.image.pixels)
        var s = ProbedSource(probe: r, data: format == .gif ? head : nil, isWhole: format == .gif, jpeg: nil,
                             colour: SourceColour.inspect(d.image.iccProfile ?? (format == .jp2 ? EmbeddedProfile.fromJP2(head) : nil)),
                             firstFrame: d.image, media: nil)
        if let gif, let stripped = GIFStripper.strip(head, walk: gif), !stripped.isUnchanged {
            (s.metadata, s.strippedGIF) = (stripped.found, stripped.data)
        }
        if r.animated {
            s.animation = try FFmpegAnimation(path: path, width: d.image.pixels.width, height: d.image.pixels.height,
                                              plays: gif?.plays(in: head) ?? 1, maxPixels: maxPixels)
            return s
        }
        return try asFile(s)
    }
}

/// A motion photo's video length, probed from its bytes; nil when FFmpeg cannot read it.
fileprivate func motionSeconds(_ data: [UInt8], _ range: Range<Int>) -> Double? {
    (try? MediaProbe.probeAV(data: Array(data[range]), name: "the motion photo's video"))?.durationSeconds
}
