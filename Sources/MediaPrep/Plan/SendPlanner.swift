import UploadPlanner

/// The one place that decides what becomes of an input: kept, re-encoded, remuxed, transcoded, sent
/// as a file or refused, and why in words. A pure function of what the probe found and the rules.
package enum SendPlanner {
    package static func plan(_ s: ProbedSource, _ rules: SendRules) -> SendPlan {
        var plan = decide(s, rules)
        // Whatever goes with its own bytes goes without the sender's location, device and dates.
        if case .copy(let keepName, nil) = plan.action, let rewrite = s.rewrite {
            plan.action = .copy(keepName: keepName, rewrite: rewrite)
            let untouched = s.probe.format.isPackage ? "content" : s.probe.format.isImage || s.probe.format.isDocument ? "pixels" : "streams"
            plan.reasons.append(rewrite.summary + " (\(untouched) untouched)")
        }
        return plan
    }

    private static func decide(_ s: ProbedSource, _ rules: SendRules) -> SendPlan {
        let p = s.probe
        do {
            switch p.kind {
            case .image: return try image(s, rules)
            case .animatedImage: return try animated(s, rules)
            case .video: return try video(p, rules, forceTranscode: false, remux: s.withoutFileType)
            case .voice: return try voice(p, rules)
            case .file:
                var why = s.sentAsFileBecause
                if p.format.isPackage, let reason = why {
                    // A document whose metadata cannot be taken out: said so, or refused when asked.
                    if rules.media.refuseUncleaned { throw MediaPrepError(.unsupportedFormat, "\(reason): refused (--strict), since its metadata cannot be taken out") }
                    why = "\(reason): sent as it came, its metadata not removed"
                }
                return try copy(p, rules, kind: .file, keepName: true, reasons: (why.map { [$0] } ?? [])
                + ["\(p.bytes.formatted) bytes within the \(Int(rules.limits.maxFileSizeXFTP).formatted)-byte limit"])
            }
        } catch let e as MediaPrepError {
            return SendPlan(kind: p.kind, action: .reject(e), reasons: [e.message])
        } catch {
            return SendPlan(kind: p.kind, action: .reject(MediaPrepError(.decodeFailed, "\(error)")), reasons: ["\(error)"])
        }
    }

    // MARK: images

    private static func image(_ s: ProbedSource, _ rules: SendRules) throws -> SendPlan {
        if let motion = s.motionVideo {
            let length = motion.seconds.map { "\(seconds($0)) s of video" } ?? "its video"
            if rules.media.motion == .video {
                return SendPlan(kind: .video, action: .motionVideo(motion.range), reasons: [
                    "motion photo: \(length) sent as a video message, stripped like every video, the still its preview"])
            }
            var plan = try imagePlan(s, rules)
            plan.reasons.append("motion photo: \(length) not sent (--motion video sends it)")
            return plan
        }
        var plan = try imagePlan(s, rules)
        if rules.media.quality == .hd, plan.error == nil {
            plan.reasons.insert("HD: up to \(rules.profile.maxBytes.formatted) bytes, what recipients receive without asking", at: 0)
        }
        return plan
    }

    private static func imagePlan(_ s: ProbedSource, _ rules: SendRules) throws -> SendPlan {
        if rules.media.quality == .original, let plan = try original(s, rules) { return plan }
        if let long = try longImage(s, rules) { return long }
        let p = s.probe, profile = rules.profile
        let fit = p.bytes > profile.maxBytes ? ["re-encoded to fit \(profile.maxBytes.formatted) bytes"] : []
        let side = max(p.width ?? 0, p.height ?? 0)
        let cap = profile.maxSide.flatMap { side > $0 ? ["resized to \($0) px on the long side"] : nil } ?? []
        let sent = sentPixels(p.width, p.height, profile)
        if let j = s.jpeg {
            // As prepare counts pixels: after shrink-on-load to the view size, or whole when decoding
            // costs the whole (progressive, multi-scan or arithmetic-coded).
            try s.checkDecodeCost(profile: profile, maxPixels: rules.maxPixels)
            var changes = fit + cap + sent.reasons
            if let c = s.colour { changes.append(c.reason) }
            if j.header.isCMYK { changes.append("CMYK converted to RGB") }
            if j.orientation != .up { changes.append("EXIF rotation applied") }
            changes += j.metadata.removals
            if j.markers.extraneousBytes > 0 { changes.append("stray bytes between segments removed") }
            if j.header.isArithmetic { changes.append("arithmetic coding re-coded as Huffman (most apps cannot decode it)") }
            // Within budget, not CMYK, sRGB, within the side and pixel caps: sent with its own
            // entropy-coded data (arithmetic coding turned into Huffman losslessly).
            let keep = p.bytes <= profile.maxBytes && !j.header.isCMYK && s.colour == nil && side <= (profile.maxSide ?? Int.max) && sent.fits
            guard keep else { return SendPlan(kind: .image, action: .encodeImage, reasons: changes) }
            let route: PrepareRoute = j.orientation != .up ? .rotated : j.isClean && !j.header.isArithmetic ? .untouched : .stripped
            let reasons = route == .untouched ? ["JPEG within \(profile.maxBytes.formatted) bytes, upright, no metadata"] : changes
            return SendPlan(kind: .image, action: .keepOriginal(route), reasons: reasons)
        }
        if let w = p.width, let h = p.height { try checkPixels(w * h, w, h, rules) }
        let pngCost = p.format == .png ? s.data.flatMap(PNGHeader.decodeCost) : nil
        // A PNG within the budget (a screenshot, a diagram) goes with its own lossless data, as a JPEG
        // within it does: making it smaller would only blur its text.
        if p.format == .png, p.bytes <= profile.maxBytes, s.colour == nil, p.orientation == .up, sent.fits,
           side <= (profile.maxSide ?? Int.max), let data = s.data, data.count == p.bytes, pngCost == nil {
            let removed = s.metadata ?? PictureMetadata(png: data)
            let route: PrepareRoute = removed.changesFile ? .stripped : .untouched
            let reasons = route == .untouched ? ["PNG within \(profile.maxBytes.formatted) bytes, lossless, sent as it is"]
                : ["PNG within \(profile.maxBytes.formatted) bytes sent with its own image data"] + removed.removals
            return SendPlan(kind: .image, action: .keepOriginal(route), reasons: reasons)
        }
        let how: String
        switch p.format {
        case _ where s.demosaiced: how = "\(p.format == .cameraRaw ? "a camera raw photo" : "a DNG of raw sensor data"), demosaiced by LibRaw (camera white balance, sRGB) and encoded as JPEG"
        case .png where p.hasAlpha: how = "re-encoded: PNG if the transparency fits, else JPEG on \(Background.describe(profile.background))"
        case .png: how = "re-encoded: a lossless PNG if it is flat graphics of ≤ 256 colours that fit, else JPEG"
        case _ where p.hasAlpha: how = "\(p.format.rawValue) re-encoded: PNG if the transparency fits, else JPEG on \(Background.describe(profile.background))"
        case _ where [.gif, .bmp, .tiff].contains(p.format) || (p.format == .webp && s.webp?.isLossless == true):
            how = "\(p.format.rawValue) re-encoded: a lossless PNG if it is flat graphics of ≤ 256 colours that fit, else JPEG"
        default: how = "\(p.format.rawValue) re-encoded as JPEG"
        }
        let removed = s.metadata?.removals ?? []
        return SendPlan(kind: .image, action: .encodeImage,
                        reasons: [how] + (s.colour.map { [$0.reason] } ?? []) + (s.hdr.map { [$0.reason] } ?? []) + fit + cap + sent.reasons + (pngCost.map { [$0] } ?? []) + removed)
    }

    /// A photo in its original quality (`--quality original`): its own pixels, its metadata gone. A
    /// JPEG or a PNG of at most the pixels a recipient's phone is asked to decode goes as an image
    /// message, the file itself (recipients download one over 522,240 bytes when they tap it, as any
    /// large image), with its preview; a larger one, and HEIC, AVIF, JPEG XL, WebP and GIF, which not
    /// every SimpleX client shows, go as a file of their own bytes. Nil where the original cannot go
    /// without what names its sender (a camera raw, whose maker's metadata no rewrite takes apart;
    /// a picture whose bytes the probe did not keep): prepared as standard, and the plan says so.
    private static func original(_ s: ProbedSource, _ rules: SendRules) throws -> SendPlan? {
        let p = s.probe
        guard !s.demosaiced, p.format != .cameraRaw else { return nil }
        try checkFileLimit(p, rules)
        let (w, h) = (p.width ?? 0, p.height ?? 0)
        try checkPixels(w * h, w, h, rules)
        let said = "original quality: its own pixels"
        if w * h <= rules.profile.maxSentPixels {
            if let j = s.jpeg {
                let route: PrepareRoute = j.orientation != .up ? .rotated : j.isClean && !j.header.isArithmetic ? .untouched : .stripped
                var reasons = [said + (route == .rotated ? ", turned upright in the DCT domain (no re-encoding; partial edge blocks trimmed)" : "")]
                var removed = j.metadata
                removed.iccProfile = false  // its colours stay
                reasons += removed.removals
                if j.header.isArithmetic { reasons.append("arithmetic coding re-coded as Huffman, losslessly") }
                return SendPlan(kind: .image, action: .keepOriginal(route), reasons: reasons)
            }
            if p.format == .png, p.orientation == .up {
                // Read from its head alone (`check` of a large one), its chunks are cleaned as `prepare` will.
                let removed = s.data.flatMap { $0.count == p.bytes ? s.metadata ?? PictureMetadata(png: $0) : nil }
                return SendPlan(kind: .image, action: .keepOriginal(removed?.changesFile == false ? .untouched : .stripped),
                                reasons: [said] + (removed?.removals ?? []))
            }
        }
        guard let data = s.data, data.count == p.bytes else { return nil }
        let rewrite = s.rewrite ?? MetadataRewrite.picture(data, jpeg: s.jpeg, orientation: s.heifOrientation ?? p.orientation)
        let why = w * h > rules.profile.maxSentPixels
            ? "\(w)×\(h) is over the \(rules.profile.maxSentPixels.formatted) pixels a recipient's phone is asked to decode as an image"
            : "\(p.format.rawValue.uppercased()) is not shown by every SimpleX client"
        var plan = try copy(p, rules, kind: .file, keepName: true, reasons: [said + ", sent as a file (\(why))"])
        plan.action = .copy(keepName: true, rewrite: rewrite)
        if let rewrite { plan.reasons.append(rewrite.found.removal + " (pixels untouched)") }
        return plan
    }

    /// Taller than `LongImage.maxAspect` times its width: a long screenshot that one image within the
    /// budget cannot keep readable; split, sent as a file, or shrunk as `--long-images` says.
    private static func longImage(_ s: ProbedSource, _ rules: SendRules) throws -> SendPlan? {
        let p = s.probe
        // A camera raw's own bytes never leave (nothing takes its metadata out): it is shrunk instead.
        guard let w = p.width, let h = p.height, h > LongImage.maxAspect * w, rules.media.longImages != .shrink,
              p.format != .cameraRaw || rules.media.longImages != .file else { return nil }
        try checkPixels(w * h, w, h, rules)
        let ranges = LongImage.parts(width: w, height: h)
        let limit = rules.limits.maxMediaPerMessage
        if rules.media.longImages == .file || ranges.count > limit {
            let why = rules.media.longImages == .file ? "(--long-images file)" : "(it would take \(ranges.count) images, over the album's \(limit))"
            var plan = try copy(p, rules, kind: .file, keepName: true, reasons: [
                "\(w)×\(h): too long to stay readable as one image; sent as a file with its original bytes \(why)"])
            // Its metadata goes (`MetadataRewrite.picture`, added by `plan`) unless it cannot be found in place.
            if s.rewrite == nil, !(s.metadata?.removals ?? []).isEmpty { plan.reasons.append("metadata kept: a file is sent as it is") }
            return plan
        }
        return SendPlan(kind: .image, action: .splitImage(parts: ranges), reasons: [
            "\(w)×\(h): too long to stay readable as one image; split into \(ranges.count) parts of up to \(LongImage.partAspect * w) rows (overlapping \(LongImage.overlap(width: w)) rows), sent in order as one album, each within \(rules.profile.maxBytes.formatted) bytes"])
    }

    /// Whether an image of this size may leave at its own size, and if not, the words for it.
    private static func sentPixels(_ w: Int?, _ h: Int?, _ profile: ImageProfile) -> (fits: Bool, reasons: [String]) {
        guard let w, let h, w * h > profile.maxSentPixels else { return (true, []) }
        return (false, ["\(w)×\(h) is over the \(profile.maxSentPixels.formatted) pixels a recipient's phone is asked to decode: resized"])
    }

    private static func checkPixels(_ decoded: Int, _ w: Int, _ h: Int, _ rules: SendRules) throws {
        if decoded > rules.maxPixels {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(rules.maxPixels)-pixel limit")
        }
    }

    /// Animated GIFs go as their original bytes (re-encoding would lose frames or grow them), except
    /// where the destination does not animate them (Bluesky): there they become a short H.264 video;
    /// or over the sender's cap (`--auto-receive`), made a smaller GIF. SimpleX animates GIF only, so
    /// an animated WebP or APNG becomes one.
    private static func animated(_ s: ProbedSource, _ rules: SendRules) throws -> SendPlan {
        let p = s.probe
        let frames = "\(p.frameCount ?? 0) frames, their delays and loop count kept"
        if rules.profile.animatedAsVideo && p.format != .webp {  // FFmpeg 5.1 cannot decode animated WebP
            try AnimationCost.checkDecodeCost(p)
            var plan = try video(p, rules, forceTranscode: true)
            plan.reasons = ["animated \(p.format == .png ? "PNG" : p.format == .avif ? "AVIF" : "GIF") turned into an H.264 MP4 (\(rules.profile.name) does not animate GIFs)"]
            return plan
        }
        let limit = rules.limits.maxImageSizeAutoReceive
        guard p.format == .gif else {
            try AnimationCost.checkDecodeCost(p)
            let name = p.format == .png ? "APNG" : p.format == .avif ? "animated AVIF" : "animated WebP"
            return SendPlan(kind: .animatedImage, action: .encodeAnimation, reasons: [
                "\(name) made an animated GIF (SimpleX animates GIF only): \(frames), within \(rules.profile.maxBytes.formatted) bytes where it fits"]
                + (s.metadata?.removals ?? []))
        }
        if let w = p.width, let h = p.height, w * h > rules.profile.maxSentPixels {
            try AnimationCost.checkDecodeCost(p)
            return SendPlan(kind: .animatedImage, action: .encodeAnimation, reasons: [
                "animated GIF of \(w)×\(h) frames, over the \(rules.profile.maxSentPixels.formatted) pixels a recipient's phone is asked to decode: made smaller (\(frames))"])
        }
        if AnimationCost.loopPixels(p) > AnimationCost.maxSentFramePixels {
            try AnimationCost.checkDecodeCost(p)
            return SendPlan(kind: .animatedImage, action: .encodeAnimation, reasons: [
                "animated GIF of \(p.frameCount ?? 0) frames of \(p.width ?? 0)×\(p.height ?? 0), over the \(AnimationCost.maxSentFramePixels.formatted) frame pixels a recipient's phone is asked to decode a loop: made smaller (\(frames))"])
        }
        if let cap = rules.media.animatedMaxBytes, p.bytes > cap {
            try AnimationCost.checkDecodeCost(p)
            return SendPlan(kind: .animatedImage, action: .encodeAnimation, reasons: [
                "animated GIF over \(cap.formatted) bytes made smaller to fit \(rules.profile.maxBytes.formatted) bytes: \(frames)"])
        }
        let removals = s.metadata?.removals ?? []
        if !removals.isEmpty {
            try checkFileLimit(p, rules)
            return SendPlan(kind: .animatedImage, action: .keepOriginal(.stripped),
                            reasons: ["animated GIF sent with its own frames"] + removals)
        }
        return try copy(p, rules, kind: .animatedImage, keepName: false, reasons: [p.bytes <= limit ? "animated GIF, sent as it is, auto-received"
            : "animated GIF over \(limit.formatted) bytes: sent as it is, recipients must accept it"])
    }

    // MARK: video and voice

    /// MP4/MOV with H.264/HEVC and AAC goes as it is; the same codecs in Matroska/WebM are moved
    /// into an MP4 untouched (iPhones cannot open MKV); anything else (VP9, AV1, Opus…) is
    /// transcoded to H.264 + AAC. A byte budget re-encodes whatever is over it.
    /// - Parameter remux: a container that plays would still be remuxed (a QuickTime movie with no file type).
    private static func video(_ p: ProbeResult, _ rules: SendRules, forceTranscode: Bool, remux: Bool = false) throws -> SendPlan {
        let budget = rules.videoBudget
        let original = rules.media.video == .original
        let trim = try trimmed(p, rules.media.trim)
        if trim == nil { try checkFileLimit(p, rules) }  // a part is judged by its own size, once made
        var compatibility: VideoCompatibility = forceTranscode || p.format.isTranscodedOnly ? .needsTranscode : original ? .playable : .of(p)
        if remux && !original && compatibility == .playable { compatibility = .remux }
        // A part of a clip that plays as it is: its packets copied from a keyframe.
        if trim != nil && compatibility == .playable { compatibility = .remux }
        // A picture taller (on its short side) than the sender's cap is transcoded down to it.
        let (long, short) = (max(p.width ?? 0, p.height ?? 0), min(p.width ?? 0, p.height ?? 0))
        var maxLongSide = VideoEncodePlan.defaultLongSide
        var capped: [String] = []
        if let cap = rules.media.videoMaxHeight, !original, short > cap, long > 0 {
            compatibility = .needsTranscode
            maxLongSide = min(maxLongSide, long * cap / short / 2 * 2)
            let (w, h) = (p.width ?? 0, p.height ?? 0)
            let scaled = (w * maxLongSide / long / 2 * 2, h * maxLongSide / long / 2 * 2)
            capped = ["\(w)×\(h) is over \(cap)p (\(rules.media.quality == .hd ? "HD" : "--video-max-height \(cap)")): scaled to at most \(scaled.0)×\(scaled.1)"]
        }
        let fits = trim != nil || (budget.map { p.bytes <= $0 } ?? true)
        let codec = p.videoCodec ?? "video"
        let cut = trim.map { ["cut to \(clock($0.lowerBound))–\(clock($0.upperBound)) (\(seconds($0.upperBound - $0.lowerBound)) s)"] } ?? []
        switch (compatibility, fits) {
        case (.playable, true):
            return try copy(p, rules, kind: .video, keepName: false,
                            reasons: ["\(p.bytes.formatted) bytes within the \(Int(rules.limits.maxFileSizeXFTP).formatted)-byte limit"])
        case (.playable, false) where original:
            throw MediaPrepError(.overLimit, "\(p.bytes.formatted) bytes is over the \((budget ?? 0).formatted)-byte video budget (--video original does not re-encode)")
        case (.remux, true):
            let fallback = budget.flatMap { try? transcodePlan(p, budget: $0, trim: trim, trimToFit: rules.media.trimToFit).plan }
            let copied = trim != nil ? ["\(codec) cut from the keyframe at or before its start, packets copied as they are"] : []
            return SendPlan(kind: .video, action: .remux(budget: budget, fallback: fallback),
                            reasons: (trim == nil ? ["\(codec) remuxed from \(p.format.rawValue) into MP4 (packets untouched)"] : cut + copied)
                                + (remux ? ["a QuickTime movie with no file type box, which not every player opens"] : []))
        default:
            let (plan, note) = try transcodePlan(p, budget: budget, maxLongSide: maxLongSide, trim: trim, trimToFit: rules.media.trimToFit)
            let reason = budget.map { b in p.bytes > b || trim != nil ? "\(codec) re-encoded as H.264 + AAC to fit \(b.formatted) bytes" : nil } ?? nil
            let part = plan.plan.trim.map { t in trim == nil
                ? ["cut to its first \(seconds(t.upperBound)) s, which fit \((budget ?? 0).formatted) bytes (--trim-to-fit; the whole clip is \(seconds(p.durationSeconds ?? 0)) s)"]
                : cut.map { $0 + ", exact to the frame" } } ?? []
            return SendPlan(kind: .video, action: .transcodeVideo(plan), reasons: part + [reason
                ?? "\(codec)\(p.audioCodec.map { "/" + $0 } ?? "") transcoded to H.264 + AAC in MP4, which every client plays"] + capped
                + (note.map { [$0] } ?? (budget == nil ? ["at no more than the source's own bit rate"] : []))
                + (p.interlaced ? ["interlaced: made progressive (bwdif), one frame per frame"] : [])
                + (p.format == .mpegts ? ["an MPEG-TS is never sent as it is: a camcorder's date and GPS ride in its video stream"]
                   : p.format.isTranscodedOnly ? ["\(p.format.containerArticleName) is never sent as it is: its metadata cannot be taken out in place"] : []))
        }
    }

    /// Constant quality, or fitted to `budget` (resolution and rate chosen together; refused below the floor).
    private static func transcodePlan(_ p: ProbeResult, budget: Int?, maxLongSide: Int = VideoEncodePlan.defaultLongSide,
                                      trim: Range<Double>? = nil, trimToFit: Bool = false) throws -> (plan: VideoTranscodePlan, note: String?) {
        var source = VideoSource(probe: p)
        if let trim { source.seconds = trim.upperBound - trim.lowerBound }
        func cut(_ plan: VideoEncodePlan, _ window: Range<Double>?) -> VideoEncodePlan {
            var plan = plan
            plan.trim = window
            return plan
        }
        guard let budget else {
            // For compatibility alone: never larger than the source, unless H.264 cannot look right at its rate.
            let (plan, note) = VideoEncodePlan.compatible(source, sourceBitRate: p.bitRate, maxLongSide: maxLongSide)
            return (VideoTranscodePlan(plan: cut(plan, trim), fallback: nil, budget: nil), note)
        }
        do {
            let (plan, fallback) = try VideoBudget.plan(source, maxBytes: budget, maxLongSide: maxLongSide)
            return (VideoTranscodePlan(plan: cut(plan, trim), fallback: fallback.map { cut($0, trim) }, budget: budget), nil)
        } catch let e as MediaPrepError where e.code == .overLimit && trimToFit {
            // The first part that fits, at the floor with room to spare.
            let start = trim?.lowerBound ?? 0
            let fits = VideoBudget.longestFitting(source, maxBytes: budget)
            guard fits >= 1 else { throw e }
            source.seconds = fits
            let (plan, fallback) = try VideoBudget.plan(source, maxBytes: budget, maxLongSide: maxLongSide)
            let window = start..<(start + fits)
            return (VideoTranscodePlan(plan: cut(plan, window), fallback: fallback.map { cut($0, window) }, budget: budget), nil)
        }
    }

    /// `--trim` held to the clip's length; nil without one. A start past the clip's end is refused.
    private static func trimmed(_ p: ProbeResult, _ trim: Range<Double>?) throws -> Range<Double>? {
        guard let trim else { return nil }
        let length = p.durationSeconds ?? .infinity
        guard trim.lowerBound < length else {
            throw MediaPrepError(.invalidArgument, "--trim starts at \(seconds(trim.lowerBound)) s, past the clip's end (\(seconds(length)) s)")
        }
        return max(0, trim.lowerBound)..<min(trim.upperBound, length)
    }

    /// "1:05.5" or "0:07": a cut's time as a person reads it.
    static func clock(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded())
        let (m, rest) = (tenths / 600, tenths % 600)
        return String(printf: "%d:%02d", m, rest / 10) + (rest % 10 == 0 ? "" : ".\(rest % 10)")
    }

    /// AAC in M4A/MP4 within the budget goes as it is; any other audio becomes the app's own format
    /// (AAC-LC .m4a, mono, 16 kHz, 32 kbit/s), since iPhones cannot play Opus, Vorbis, FLAC or WAV
    /// notes; with a budget, at the rate that fits (never below 16 kbit/s).
    private static func voice(_ p: ProbeResult, _ rules: SendRules) throws -> SendPlan {
        let d = p.durationSeconds ?? 0, limits = rules.limits
        let tooLong = d > Double(limits.maxVoiceMessageSeconds)
        switch rules.media.audio {
        case .file:
            return try audioFile(p, rules, "audio sent as a file (--audio-as file)")
        case .auto where tooLong:
            return try audioFile(p, rules, "audio over \(limits.maxVoiceMessageSeconds) s (\(seconds(d)) s): sent as a file, as the app's file picker does")
        case .auto where p.music != nil:
            return try audioFile(p, rules, "music (\(p.music ?? "")): sent as a file, as the app sends a picked song; --audio-as voice makes a voice message")
        case .voice where tooLong:
            throw MediaPrepError(.voiceTooLong, "voice over \(limits.maxVoiceMessageSeconds) s (\(seconds(d)) s): cannot be sent")
        default:
            break
        }
        let budget = rules.media.voiceMaxBytes
        if VoiceTranscoder.playsAsIs(p), p.bytes <= budget ?? Int.max {
            let auto = p.bytes <= limits.maxVoiceSizeAutoReceive ? ", auto-received" : ""
            return try copy(p, rules, kind: .voice, keepName: false, reasons: ["\(seconds(d)) s voice note" + auto])
        }
        var rate = VoiceTranscoder.bitRate
        if let budget {
            guard let fitting = VoiceTranscoder.bitRate(fitting: budget, seconds: d) else {
                throw MediaPrepError(.overLimit, "\(seconds(d)) s of voice cannot fit \(budget.formatted) bytes even at \(VoiceTranscoder.minimumBitRate / 1000) kbit/s")
            }
            rate = fitting
        }
        return SendPlan(kind: .voice, action: .transcodeVoice(bitRate: rate, budget: budget),
                        reasons: ["\(p.audioCodec ?? "audio") transcoded to AAC .m4a (mono, 16 kHz), as the app records voice"])
    }

    /// Audio under its own name: its bytes (tags cut by the rewrite `plan` adds), or, from a container
    /// whose tags cannot be cut in place, its sound in a clean file (`AudioFileRoute`).
    private static func audioFile(_ p: ProbeResult, _ rules: SendRules, _ why: String) throws -> SendPlan {
        guard p.format.isTranscodedOnly else { return try copy(p, rules, kind: .file, keepName: true, reasons: [why]) }
        try checkFileLimit(p, rules)
        let route = AudioFileRoute.of(p)
        return SendPlan(kind: .file, action: .audioFile(route), reasons: [
            why, "\(route.describe(p)): \(p.format.containerArticleName)'s names and dates cannot be taken out in place"])
    }

    // MARK: sent as they are

    /// The input's own bytes, if they can travel at all (XFTP's limit, or SMP's without XFTP).
    private static func copy(_ p: ProbeResult, _ rules: SendRules, kind: UploadContentKind, keepName: Bool,
                             reasons: [String]) throws -> SendPlan {
        try checkFileLimit(p, rules)
        let planner = TransferPlanner(limits: rules.limits, xftpAvailable: rules.xftp)
        let transfer = planner.plan(size: Int64(p.bytes), kind: kind, fileName: "file", recipients: rules.recipients)
        if transfer.method == .rejected { throw MediaPrepError(.overLimit, transfer.reason ?? "cannot be sent") }
        return SendPlan(kind: kind, action: .copy(keepName: keepName, rewrite: nil), reasons: reasons)
    }

    private static func checkFileLimit(_ p: ProbeResult, _ rules: SendRules) throws {
        let limit = rules.limits.maxFileSizeXFTP
        if Int64(p.bytes) > limit {
            throw MediaPrepError(.overLimit, "\(p.bytes.formatted) bytes is over the \(Int(limit).formatted)-byte limit")
        }
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
