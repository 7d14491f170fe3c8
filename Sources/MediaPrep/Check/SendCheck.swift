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
        public var kind: UploadContentKind = .file
        public var format: MediaFormat = .unknown
        public var bytes: Int?
        public var width: Int?
        public var height: Int?
        public var durationSeconds: Double?
        public var verdict: Verdict = .cannotSend
        /// What preparation would change ("re-encoded to fit 261,120 bytes"), or why not.
        public var reasons: [String] = []
        public var error: MediaPrepError?
        /// One stable word for the outcome (`sendable`, `reencoded`, `madeGIF`, or the error's code):
        /// what CI rules and SARIF key on.
        public var code = "sendable"

        public init(input: String) { self.input = input }

        public var json: JSONValue {
            .object([
                .init("input", .string(input)), .init("kind", .string(kind.rawValue)), .init("format", .string(format.rawValue)),
                .init("bytes", bytes.map { .int($0) } ?? .null), .init("width", width.map { .int($0) } ?? .null),
                .init("height", height.map { .int($0) } ?? .null),
                .init("durationSeconds", durationSeconds.map { .double(($0 * 1000).rounded() / 1000) } ?? .null),
                .init("verdict", .string(verdict.rawValue)), .init("code", .string(code)), .init("reasons", .array(reasons.map { .string($0) })),
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

    var rules: SendRules {
        var r = SendRules()
        (r.profile, r.limits, r.maxPixels, r.media) = (profile, limits, maxPixels, media)
        return r
    }

    /// Headers, sizes and durations only; a JPEG small enough to be sent as it is is decoded at 1/8
    /// scale (luma only, ~1 ms for 255 KiB), since its own entropy-coded data is what would be sent.
    /// iPhone Live Photos among the files checked: each still's movie (`LivePhoto.pairs`), judged as
    /// `prepare` sends them.
    package var livePhotos: [String: String] = [:]

    public func check(path: String) -> Result {
        var r = livePhotos.isEmpty ? checkOne(path: path) : checkPaired(path: path)
        r.input = path
        return r
    }

    /// A Live Photo's still, or its movie, as `prepare` treats the pair: the still with its movie left
    /// out, or (`--motion video`) the movie as its video message and the still not sent.
    private func checkPaired(path: String) -> Result {
        var alone = self
        alone.livePhotos = [:]
        let video = media.motion == .video
        if let still = livePhotos.first(where: { $0.value == path })?.key {
            var r = alone.checkOne(path: path)
            if r.verdict != .cannotSend {
                r.verdict = .afterPreparation
                r.reasons.insert("the video of the Live Photo \(still): " + (video ? "sent as its video message, the still its preview" : "not sent (--motion video sends it)"), at: 0)
            }
            return r
        }
        guard let movie = livePhotos[path] else { return alone.checkOne(path: path) }
        if video {
            var r = alone.checkOne(path: movie)
            if r.verdict != .cannotSend {
                r.verdict = .afterPreparation
                r.reasons.insert("Live Photo: its video (\(movie)) sent as a video message instead of the still", at: 0)
            }
            return r
        }
        var r = alone.checkOne(path: path)
        if r.verdict != .cannotSend {
            r.verdict = .afterPreparation
            r.reasons.append("Live Photo: its video (\(movie)) not sent (--motion video sends it)")
        }
        return r
    }

    private func checkOne(path: String) -> Result {
        var r = Result(input: path)
        do {
            let rules = self.rules
            let source = try MediaProbe.source(path: path, depth: .headers(wholeUpTo: profile.maxBytes), maxPixels: maxPixels)
            let p = source.probe
            (r.kind, r.format, r.bytes, r.width, r.height, r.durationSeconds) = (p.kind, p.format, p.bytes, p.width, p.height, p.durationSeconds)
            let plan = SendPlanner.plan(source, rules)
            r.kind = plan.kind  // what it is sent as (a long recording: a file)
            if plan.verdict != .cannotSend { try verify(source, plan) }
            (r.verdict, r.reasons, r.error, r.code) = (plan.verdict, plan.reasons, plan.error, plan.code)
        } catch let e as MediaPrepError {
            r.verdict = .cannotSend
            r.error = e
            if r.bytes == nil, let id = MediaProbe.identify(path: path) { (r.format, r.kind, r.bytes) = (id.format, id.kind, id.bytes) }
            r.code = e.code.rawValue
            r.reasons = ["\(e.code.rawValue): \(e.message)"]
        } catch {
            r.verdict = .cannotSend
            r.code = MediaPrepError.Code.decodeFailed.rawValue
            r.reasons = ["\(error)"]
        }
        return r
    }

    /// A cut-off image lacks its closing marker (one small read of the tail); a JPEG that would be
    /// sent with its own data is decoded, as `prepare` decodes what it keeps.
    private func verify(_ source: ProbedSource, _ plan: SendPlan) throws {
        let path = source.probe.path
        switch source.probe.format {
        case .jpeg:
            // Read whole: EOI found by walking the scans. Else its tail; a file whose EOI is further
            // from its end (a phone's trailer after it, a motion photo's video) is then read whole.
            let ended = source.isWhole ? source.jpeg?.tail?.end != nil
                : try hasEnd(path, marker: [0xFF, 0xD9], within: 4096) || readWhole(source).map { JPEGMarkers($0).tail(in: $0).end != nil } == true
            if !ended { throw MediaPrepError(.truncated, "\(path) ends without its JPEG end-of-image marker: the file is cut off") }
            if case .keepOriginal = plan.action, let data = source.data, source.isWhole {
                _ = try JPEGDecoder.decode(data, parsed: source.jpeg, options: DecodeOptions(maxPixels: maxPixels, minimumWidth: 1, minimumHeight: 1),
                                           lumaOnly: true)
            }
        case .png:
            let ended = try source.isWhole ? source.data.map(PNGChunks.hasEnd) == true
                : hasEnd(path, marker: Array("IEND".utf8), followedBy: 4, within: 64) || readWhole(source).map(PNGChunks.hasEnd) == true  // and its CRC
            if !ended { throw MediaPrepError(.truncated, "\(path) ends without its PNG IEND chunk: the file is cut off") }
        case .jxl:
            // A bare codestream has no sizes to hold against the file, and libjxl 0.7 skips a frame
            // without asking for its bytes: only its decode finds a cut, as `prepare`'s does
            // (photo.jxl-sized files: ~80 ms, against 10 ms for the header).
            if let data = source.data, data.starts(with: [0xFF, 0x0A]) { _ = try JXLDecoder.decode(data, maxPixels: maxPixels) }
        default:
            if plan.kind == .voice { try ContainerEnd.voiceSource(source.probe.format, path: path) }  // as `prepare` checks it
            // `prepare` decodes a video's frame (its thumbnail) and a voice note's sound: one stripped of
            // its media data, or whose index points past its end, gives none (exiftool's samples of MOV,
            // M2TS, AVI, MXF, WAV and FLAC passed `check` and failed `prepare`).
            if plan.kind == .video || plan.kind == .voice, let input = source.media, !input.givesPacket(video: plan.kind == .video) {
                throw MediaPrepError(.truncated, "\(path) holds no \(plan.kind == .video ? "video frame" : "sound"): its media data is missing")
            }
        }
    }

    /// Whether the closing marker (and the bytes that must follow it) is in the file's last `within`
    /// bytes: one small read, true for nearly every file.
    private func hasEnd(_ path: String, marker: [UInt8], followedBy: Int = 0, within: Int) throws -> Bool {
        let tail = try FileBytes.tail(path, count: within)
        guard tail.count >= followedBy else { return false }
        return Bytes.find(marker, in: Array(tail.dropLast(followedBy))) != nil
    }

    /// The whole file, as `prepare` reads it (within the same read limit).
    private func readWhole(_ source: ProbedSource) throws -> [UInt8]? {
        try InputFile(source.probe.path).whole(after: source.data ?? [])
    }
}

extension SendPlan {
    /// The plan as `check` answers it: sent as it is, after preparation, or not at all.
    package var verdict: SendCheck.Verdict {
        switch action {
        case .copy(_, nil), .keepOriginal(.untouched): return .asIs
        case .reject: return .cannotSend
        default: return .afterPreparation
        }
    }
}
