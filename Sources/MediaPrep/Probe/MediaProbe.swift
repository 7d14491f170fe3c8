import UploadPlanner
import CFFmpeg

/// Classifies and measures any file: images natively, audio and video through libavformat.
public enum MediaProbe {
    /// What a file the probe refused still shows, for the error's report: its sniffed format, the
    /// kind that format is sent as (a sound: `file` until its length is known) and its size; nil when
    /// it cannot be read at all.
    package static func identify(path: String) -> (format: MediaFormat, kind: UploadContentKind, bytes: Int)? {
        guard let head = try? FileBytes.head(path, count: FormatSniffer.audioFramesLength), let bytes = try? FileBytes.size(path) else { return nil }
        let format = FormatSniffer.sniff(head)
        let kind: UploadContentKind = format.isImage ? .image : [.mp4, .mov, .matroska, .webm].contains(format) ? .video : .file
        return (format, kind, bytes)
    }

    /// Audio or video bytes already in memory (an upload not yet on disk): opened through a
    /// custom AVIOContext, the same checks as a file.
    public static func probeAV(data: [UInt8], name: String = "the data") throws -> ProbeResult {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "\(name) is empty") }
        var r = ProbeResult(path: name, kind: .file, format: FormatSniffer.sniff(data), bytes: data.count)
        try probeAV(input: try MediaInput(data: data), path: name, into: &r)
        return r
    }

    static func probeAV(input: MediaInput, path: String, into r: inout ProbeResult) throws {
        // A faststart MP4 cut short keeps its whole index; the media it points at is gone.
        for st in input.streams {
            let end = input.indexEnd(st)
            if end > Int64(r.bytes) {
                throw MediaPrepError(.truncated, "\(path) is cut off: its index points to byte \(end), the file has \(r.bytes)")
            }
        }
        r.container = input.containerName
        let video = input.bestStream(AVMEDIA_TYPE_VIDEO)
        let audio = input.bestStream(AVMEDIA_TYPE_AUDIO)
        if let a = audio {
            let par = a.pointee.codecpar.pointee
            r.audioCodec = FFmpegLibraries.codecName(par.codec_id)
            r.audioChannels = Int(par.ch_layout.nb_channels)
            r.audioSampleRate = Int(par.sample_rate)
            if par.bit_rate > 0 { r.audioBitRate = Int(par.bit_rate) }
        }
        r.durationSeconds = input.durationSeconds(stream: video ?? audio)
        if input.context.pointee.bit_rate > 0 {
            r.bitRate = Int(input.context.pointee.bit_rate)
        } else if let d = r.durationSeconds, d > 0 {
            r.bitRate = Int(Double(r.bytes) * 8 / d)  // FFmpeg's own estimate when probing is skipped
        }
        if let v = video {
            let par = v.pointee.codecpar.pointee
            r.videoCodec = FFmpegLibraries.codecName(par.codec_id)
            r.rotation = VideoRotation.clockwiseDegrees(stream: v)
            r.interlaced = [AV_FIELD_TT, AV_FIELD_BB, AV_FIELD_TB, AV_FIELD_BT].contains(par.field_order)
            if !r.interlaced, par.field_order == AV_FIELD_UNKNOWN, par.codec_id == AV_CODEC_ID_H264,
               let extra = par.extradata, par.extradata_size > 8 {
                // Not decoded here: the SPS in the container's avcC says whether the stream is coded as fields.
                r.interlaced = H264Interlacing.isInterlaced(avcC: Array(UnsafeBufferPointer(start: extra, count: Int(par.extradata_size)))) ?? false
            }
            let (w, h) = (Int(par.width), Int(par.height))
            (r.width, r.height) = r.rotation % 180 == 0 ? (w, h) : (h, w)
            let fr = v.pointee.avg_frame_rate
            if fr.num > 0 && fr.den > 0 { r.frameRate = Double(fr.num) / Double(fr.den) }
            if v.pointee.nb_frames > 0 { r.frameCount = Int(v.pointee.nb_frames) }
            r.animated = true
            r.kind = .video
        } else if let codec = r.audioCodec {
            r.kind = codec == "unknown" ? .file : .voice  // a voice note (transcoded if need be), or music as a file (the plan)
            r.music = musicEvidence(input, r)
        } else {
            throw MediaPrepError(.noVideoStream, "\(path) has neither audio nor video")
        }
    }
}

extension MediaProbe {
    /// Music rather than a recording: tagged with an artist or an album, carrying cover art, or
    /// stereo and at least 30 s long. A phone's recorder makes mono, untagged files (an iPhone voice
    /// memo has a title, the place, and nothing else); a short stereo clip is still taken as speech.
    static func musicEvidence(_ input: MediaInput, _ r: ProbeResult) -> String? {
        let util = input.ff.util
        // Container tags (ID3, iTunes, RIFF INFO), or the audio stream's own (Ogg's Vorbis comments).
        let dictionaries = [input.context.pointee.metadata] + input.streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.map { $0.pointee.metadata }
        func tag(_ key: String) -> Bool {
            dictionaries.contains { d in
                guard let t = util.av_dict_get(d, key, nil, 0), let v = t.pointee.value else { return false }
                return v.pointee != 0
            }
        }
        var why: [String] = []
        if tag("artist") || tag("album_artist") { why.append("an artist tag") }
        if tag("album") { why.append("an album tag") }
        if input.streams.contains(where: { $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 }) { why.append("cover art") }
        if why.isEmpty, (r.audioChannels ?? 1) >= 2, (r.durationSeconds ?? 0) >= 30 {
            why.append("stereo, \(Int(r.durationSeconds ?? 0)) s")
        }
        return why.isEmpty ? nil : why.joined(separator: ", ")
    }
}
