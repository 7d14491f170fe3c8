import UploadPlanner

/// Says whether a file can go out as it is, after preparation, or not at all, from headers,
/// sizes and durations only: fast enough to run over a whole repository in CI.
public struct SendCheck: Sendable {
    public enum Verdict: String, Sendable, Codable {
        case asIs, afterPreparation, cannotSend
    }

    /// One file's answer, and in words what preparation would do or why it cannot be sent.
    public struct Result: Sendable {
        public var input: String
        public var kind: MediaKind = .file
        public var format: MediaFormat = .unknown
        public var bytes: Int?
        public var width: Int?
        public var height: Int?
        public var durationSeconds: Double?
        public var verdict: Verdict = .cannotSend
        /// What preparation would change ("re-encoded to fit 261,120 bytes"), or why not.
        public var reasons: [String] = []
        public var error: MediaPrepError?

        public init(input: String) { self.input = input }

        public var json: JSONValue {
            .object([
                .init("input", .string(input)), .init("kind", .string(kind.rawValue)), .init("format", .string(format.rawValue)),
                .init("bytes", bytes.map { .int($0) } ?? .null), .init("width", width.map { .int($0) } ?? .null),
                .init("height", height.map { .int($0) } ?? .null),
                .init("durationSeconds", durationSeconds.map { .double(($0 * 1000).rounded() / 1000) } ?? .null),
                .init("verdict", .string(verdict.rawValue)), .init("reasons", .array(reasons.map { .string($0) })),
                .init("error", error?.json ?? .null),
            ])
        }
    }

    public var profile: ImageProfile
    public var limits: SimplexLimits = .simplex
    public var maxPixels = 100_000_000
    /// Videos and voice notes as `prepare` would treat them (mode and byte budgets).
    public var media = MediaOptions()

    public init(profile: ImageProfile = .simplex) { self.profile = profile }

    public func check(path: String) -> Result {
        var r = Result(input: path)
        do {
            let size = try FileBytes.size(path)
            r.bytes = size
            guard size > 0 else { throw MediaPrepError(.emptyInput, "\(path) is empty") }
            let head = try FileBytes.head(path, count: 262_144)
            r.format = FormatSniffer.sniff(head)
            switch r.format {
            case .jpeg: try checkJPEG(path, head, &r)
            case .png: try checkPNG(path, head, &r)
            default: try checkOther(path, &r)
            }
        } catch let e as MediaPrepError {
            r.verdict = .cannotSend
            r.error = e
            r.reasons = ["\(e.code.rawValue): \(e.message)"]
        } catch {
            r.verdict = .cannotSend
            r.reasons = ["\(error)"]
        }
        return r
    }

    private func fitReason(_ bytes: Int) -> String? {
        bytes > profile.maxBytes ? "re-encoded to fit \(profile.maxBytes.formatted) bytes" : nil
    }

    private func checkJPEG(_ path: String, _ head: [UInt8], _ r: inout Result) throws {
        var data = head
        let h: JPEGDecoder.Header
        if let quick = try? JPEGDecoder.header(data) { h = quick } else {
            data = try FileBytes.read(path)  // a large Exif thumbnail pushed the frame header further
            h = try JPEGDecoder.header(data)
        }
        try requireEnd(path, marker: [0xFF, 0xD9], within: 4096, what: "JPEG end-of-image marker")
        let orientation = ExifOrientation.fromJPEG(data)
        r.kind = .image
        (r.width, r.height) = orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
        // As prepare counts them: after shrink-on-load to the view size.
        let (mw, mh) = JPEGDecoder.minimumSize(h, orientation: orientation, profile: profile)
        let decoded = JPEGDecoder.decodedSize(h, options: DecodeOptions(minimumWidth: mw, minimumHeight: mh))
        try checkPixels(decoded.width * decoded.height, h.width, h.height)
        var changes: [String] = []
        let bytes = r.bytes ?? 0
        // A JPEG small enough to go without re-encoding is sent with its own entropy data, so
        // that data is checked here: luma only at 1/8 scale, ~1 ms for 255 KiB. (Larger files
        // are decoded, and so checked, when prepared.)
        if bytes <= profile.maxBytes {
            let whole = data.count == bytes ? data : try FileBytes.read(path)  // the 256 KiB head usually is the file
            _ = try JPEGDecoder.decode(whole, options: DecodeOptions(maxPixels: maxPixels, minimumWidth: 1, minimumHeight: 1), lumaOnly: true)
        }
        if let fit = fitReason(bytes) { changes.append(fit) }
        if let cap = profile.maxSide, max(h.width, h.height) > cap { changes.append("resized to \(cap) px on the long side") }
        if h.isCMYK { changes.append("CMYK converted to RGB") }
        if orientation != .up { changes.append("EXIF rotation applied") }
        changes += JPEGMetadata(jpeg: data).removals
        r.verdict = changes.isEmpty ? .asIs : .afterPreparation
        r.reasons = changes.isEmpty ? ["JPEG within \(profile.maxBytes.formatted) bytes, upright, no metadata"] : changes
    }

    private func checkPNG(_ path: String, _ head: [UInt8], _ r: inout Result) throws {
        guard let (w, h) = PNGHeader.size(head) else { throw MediaPrepError(.truncated, "\(path) has no complete PNG header") }
        try requireEnd(path, marker: Array("IEND".utf8), within: 12, what: "PNG IEND chunk")
        r.kind = .image
        (r.width, r.height) = (w, h)
        try checkPixels(w * h, w, h)
        // Colour types 4 and 6 carry alpha, as does a tRNS chunk (before IDAT, so in the head).
        let alpha = head.count > 25 && (head[25] == 4 || head[25] == 6) || head.indices.dropLast(4).contains { i in
            head[i] == 0x74 && head[i + 1] == 0x52 && head[i + 2] == 0x4E && head[i + 3] == 0x53
        }
        var changes = [alpha ? "re-encoded: PNG if the transparency fits, else JPEG on white" : "re-encoded as JPEG"]
        if let fit = fitReason(r.bytes ?? 0) { changes.append(fit) }
        if let cap = profile.maxSide, max(w, h) > cap { changes.append("resized to \(cap) px on the long side") }
        r.verdict = .afterPreparation
        r.reasons = changes
    }

    private func checkOther(_ path: String, _ r: inout Result) throws {
        let p = try MediaProbe.probe(path: path, thorough: false)
        r.kind = p.kind
        (r.width, r.height) = (p.width, p.height)
        r.durationSeconds = p.durationSeconds
        let bytes = p.bytes
        let fileLimit = limits.maxFileSizeXFTP
        let videoBudget = media.videoMaxBytes ?? profile.maxVideoBytes
        switch p.kind {
        case .image:
            if let w = p.width, let h = p.height { try checkPixels(w * h, w, h) }
            r.verdict = .afterPreparation
            r.reasons = ["\(p.format.rawValue) re-encoded as JPEG"] + [fitReason(bytes)].compactMap { $0 }
        case .animatedImage where profile.animatedAsVideo:
            r.verdict = .afterPreparation
            r.reasons = ["animated GIF turned into an H.264 MP4 (\(profile.name) does not animate GIFs)"]
        case .animatedImage:
            let limit = limits.maxImageSizeAutoReceive
            r.verdict = .asIs
            r.reasons = [bytes <= limit ? "animated GIF, sent as it is, auto-received"
                : "animated GIF over \(limit.formatted) bytes: sent as it is, recipients must accept it"]
        case .video, .file:
            if Int64(bytes) > fileLimit {
                r.verdict = .cannotSend
                r.reasons = ["\(bytes.formatted) bytes is over the \(Int(fileLimit).formatted)-byte limit"]
            } else if p.kind == .video, let reason = videoReason(p, budget: videoBudget) {
                r.verdict = reason.verdict
                r.reasons = [reason.text]
            } else {
                r.verdict = .asIs
                r.reasons = ["\(bytes.formatted) bytes within the \(Int(fileLimit).formatted)-byte limit"]
            }
        case .voice:
            let d = p.durationSeconds ?? 0
            if d > Double(limits.maxVoiceMessageSeconds) {
                r.verdict = .cannotSend
                r.reasons = ["voice over \(limits.maxVoiceMessageSeconds) s (\(Self.seconds(d)) s): cannot be sent"]
            } else if let budget = media.voiceMaxBytes, VoiceTranscoder.bitRate(fitting: budget, seconds: d) == nil {
                r.verdict = .cannotSend
                r.reasons = ["\(Self.seconds(d)) s of voice cannot fit \(budget.formatted) bytes"]
            } else if VoiceTranscoder.playsAsIs(p), bytes <= media.voiceMaxBytes ?? Int.max {
                r.verdict = .asIs
                r.reasons = ["\(Self.seconds(d)) s voice note" + (bytes <= limits.maxVoiceSizeAutoReceive ? ", auto-received" : "")]
            } else {
                r.verdict = .afterPreparation
                r.reasons = ["\(p.audioCodec ?? "audio") transcoded to AAC .m4a (mono, 16 kHz), as the app records voice"]
            }
        }
    }

    /// What `prepare` does to a video: nothing, a remux, a transcode, or a re-encode to fit the budget.
    private func videoReason(_ p: ProbeResult, budget: Int?) -> (verdict: Verdict, text: String)? {
        let codec = p.videoCodec ?? "video"
        if media.video == .original {
            guard let budget, p.bytes > budget else { return nil }
            return (.cannotSend, "\(p.bytes.formatted) bytes is over the \(budget.formatted)-byte video budget (--video original)")
        }
        if let budget, p.bytes > budget {
            do { _ = try VideoBudget.plan(VideoSource(probe: p), maxBytes: budget) } catch {
                return (.cannotSend, (error as? MediaPrepError)?.message ?? "cannot fit \(budget.formatted) bytes")
            }
            return (.afterPreparation, "\(codec) re-encoded as H.264 + AAC to fit \(budget.formatted) bytes")
        }
        switch VideoCompatibility.of(p) {
        case .playable: return nil
        case .remux: return (.afterPreparation, "\(codec) remuxed from \(p.format.rawValue) into MP4 (packets untouched)")
        case .needsTranscode:
            return (.afterPreparation, "\(codec)\(p.audioCodec.map { "/" + $0 } ?? "") transcoded to H.264 + AAC in MP4, which every client plays")
        }
    }

    private func checkPixels(_ decoded: Int, _ w: Int, _ h: Int) throws {
        if decoded > maxPixels {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(maxPixels)-pixel limit")
        }
    }

    /// A cut-off file lacks its closing marker; checking the tail costs one small read.
    private func requireEnd(_ path: String, marker: [UInt8], within: Int, what: String) throws {
        let tail = try FileBytes.tail(path, count: within)
        let found = tail.count >= marker.count && (0...(tail.count - marker.count)).contains { i in
            Array(tail[i..<i + marker.count]) == marker
        }
        if !found { throw MediaPrepError(.truncated, "\(path) ends without its \(what): the file is cut off") }
    }

    static func seconds(_ d: Double) -> String {
        let tenths = Int((d * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension Int {
    /// 261120 → "261,120", as limits are quoted to people.
    var formatted: String {
        let s = String(Swift.abs(self))
        var out = ""
        for (i, c) in s.enumerated() {
            if i > 0 && (s.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (self < 0 ? "-" : "") + out
    }
}
