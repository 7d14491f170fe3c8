import CFFmpeg

/// An MP4-family output file (faststart) that frees its context and closes its file on every path.
final class MP4Muxer {
    let api: UnsafePointer<cff_av>
    let context: UnsafeMutablePointer<AVFormatContext>
    private let path: String
    private var headerWritten = false

    /// `format`: "mp4" for video, "ipod" for an `.m4a` voice note.
    init(api: UnsafePointer<cff_av>, format: String, path: String) throws {
        self.api = api
        self.path = path
        var oc: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = cffl_open_output(api, &oc, format, path)
        guard rc >= 0, let o = oc else {
            cffl_close_output(api, oc)
            throw MediaPrepError.ffmpeg(.encodeFailed, "cannot set up the \(format) output", rc)
        }
        context = o
    }

    deinit { cffl_close_output(api, context) }

    /// A new stream carrying `encoder`'s parameters; its time base is final only after `start()`.
    func addStream(for encoder: StreamEncoder) throws -> UnsafeMutablePointer<AVStream> {
        guard let st = cffl_new_stream(api, context) else { throw MediaPrepError(.encodeFailed, "cannot add an output stream") }
        let rc = cffl_parameters_from_context(api, st.pointee.codecpar, encoder.codec)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot describe the output stream", rc) }
        st.pointee.time_base = encoder.codec.pointee.time_base
        return st
    }

    /// Opens the file and writes the header (the muxer may change stream time bases here).
    func start() throws {
        var rc = cffl_avio_open_write(api, context, path)
        if rc >= 0 { rc = cffl_write_header(api, context) }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot write the output header", rc) }
        headerWritten = true
    }

    /// Writes one encoded packet of `stream`, its timestamps in `from` (the encoder's time base).
    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: UnsafeMutablePointer<AVStream>, from: AVRational) throws {
        packet.pointee.stream_index = stream.pointee.index
        cffl_rescale_ts(api, packet, from, stream.pointee.time_base)
        let rc = cffl_write_packet(api, context, packet)  // takes the packet's data
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot write to the output", rc) }
    }

    /// Writes the index (moved to the front: faststart).
    func finish() throws {
        guard headerWritten else { throw MediaPrepError(.writeFailed, "the output was never started") }
        let rc = cffl_write_trailer(api, context)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot finish the output", rc) }
    }
}
