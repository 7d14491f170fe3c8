import UploadPlanner

/// `probe` refuses what `check` and `prepare` refuse a file for as damaged or too costly to decode,
/// in their words: the planner's admission, which the probe alone does not make.
extension MediaProbe {
    /// - Parameter thorough: also decode a JPEG or PNG, proving it whole and finding real
    ///   transparency; deciding what to do with a file needs neither.
    public static func probe(path: String, thorough: Bool = true) throws -> ProbeResult {
        let s = try source(path: path, depth: thorough ? .whole : .headers(wholeUpTo: 0))
        var r = s.probe
        // What `check` and `prepare` refuse a file for as damaged or too costly to decode, `probe`
        // refuses it for too, with their words: one admission (an image past the pixel limit, a WAV
        // whose data chunk claims 4 GB, an animation of too many frame pixels).
        let plan = SendPlanner.plan(s, SendRules())
        if let e = plan.error, Self.admissionCodes.contains(e.code) { throw e }
        if plan.kind == .voice { try ContainerEnd.voiceSource(r.format, path: path) }  // as `check` and `prepare` read it
        if thorough, r.kind == .image || r.kind == .animatedImage, let data = s.data {
            // A JPEG is proved whole at 1/8 scale (it has no alpha to find); a PNG is decoded.
            let options = s.jpeg == nil ? DecodeOptions() : DecodeOptions(minimumWidth: 1, minimumHeight: 1)
            let image = try s.jpeg.map { try JPEGDecoder.decode(data, parsed: $0, options: options) }  // its header parsed once
                ?? ImageLoader.load(data: data, path: path, options: options)
            r.hasAlpha = AlphaOps.hasRealAlpha(image.pixels)
        }
        return r
    }

    /// Refusals that say what a file is (damaged, or asking for too much), not what a send allows.
    static let admissionCodes: Set<MediaPrepError.Code> = [.tooManyPixels, .corrupt, .truncated, .invalidDimensions]
}
