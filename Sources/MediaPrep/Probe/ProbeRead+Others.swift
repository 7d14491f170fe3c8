/// Audio, video and documents: the container opened once, and what in it names the sender found.
extension ProbeRead {
    mutating func audioVisual() throws -> ProbedSource {
        // Our own walk of the container first: it names what is cut or broken where FFmpeg can only
        // say it cannot open the file (an MP4 cut before its index at the end).
        switch format {
        case .matroska, .webm: try ContainerEnd.matroska(file.reader)
        case .ogg: try ContainerEnd.ogg(file.reader)
        default: break
        }
        let rewrite = try FormatRegistry.rewrite(file.reader, format: format)
        let input = try MediaInput(path: path)
        try MediaProbe.probeAV(input: input, path: path, into: &r)
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: input)
        s.rewrite = rewrite
        s.withoutFileType = format == .mov && !(head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8))
        return s
    }

    mutating func documentPackage() throws -> ProbedSource {
        return try MediaProbe.document(path: path, file: file, r)
    }

    mutating func workingDocument() throws -> ProbedSource {
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        s.rewrite = try FormatRegistry.rewrite(file.reader, format: format)
        return s
    }

    mutating func other() throws -> ProbedSource {
        return ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
    }
}

extension MediaProbe {
    /// A PDF, a ZIP (a DOCX, an ODT, an EPUB…), a TAR or an HTML page: what names its author found,
    /// or why it goes as it came (encrypted, signed, unreadable to its library), said in its reasons.
    static func document(path: String, file: InputFile, _ r: ProbeResult) throws -> ProbedSource {
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        switch r.format {
        case .pdf:
            do {
                s.rewrite = try PDFCleaner.rewrite(path: path, size: r.bytes)
            } catch let e as MediaPrepError where [.corrupt, .unsupportedFormat].contains(e.code) {
                s.sentAsFileBecause = e.message
            }
        case .zip:
            switch try ZipPackageCleaner.inspect(path: path, size: r.bytes) {
            case .clean(let rewrite, let family):
                s.probe.format = family.format
                s.rewrite = rewrite
            case .asItCame(let reason, let family):
                s.probe.format = family.format
                s.sentAsFileBecause = reason
            }
        case .tarGzip:
            do {
                s.rewrite = try FormatRegistry.rewrite(file.reader, format: .tarGzip)
            } catch let e as MediaPrepError where e == TarRewrite.tooLargeToClean {
                s.sentAsFileBecause = e.message
            }
        default:
            s.rewrite = try FormatRegistry.rewrite(file.reader, format: r.format)
        }
        return s
    }
}
