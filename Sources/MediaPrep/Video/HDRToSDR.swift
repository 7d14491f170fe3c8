import CFFmpeg

/// HDR frames (BT.2020 with HLG, as iPhones record, or PQ/HDR10) mapped to SDR BT.709 with
/// error-diffusion dither, wherever pixels leave: a video's previews, thumbnails and transcodes (8-bit
/// 4:2:0), and an HDR AVIF or HEIC still (packed RGB). libavfilter's zscale (libzimg) and tonemap,
/// opened the first time such a frame arrives.
///
/// Measured on the phone corpus's clips against their SDR scenes (colour.py, ΔE2000 mean): PQ from its
/// reference white (203 cd/m²) with mobius 4.73 (clip 4.20 but no highlight roll-off, plain zscale
/// 13.2); HLG at 100 cd/m² with mobius 4.67 (plain zscale 4.08, which clips the highlights).
final class HDRToSDR {
    enum Transfer: Sendable {
        case hlg, pq
        /// What `check` says of a still mapped so.
        var reason: String { "HDR (\(self == .pq ? "PQ" : "HLG"), BT.2020) mapped to SDR sRGB" }
    }

    /// The transfer an HDR frame carries, or nil for SDR.
    static func transfer(of f: UnsafePointer<AVFrame>) -> Transfer? { transfer(f.pointee.color_trc) }

    /// The HDR transfer a stream or frame tags, or nil for SDR: one test for frames and streams alike.
    static func transfer(_ trc: AVColorTransferCharacteristic) -> Transfer? {
        switch trc {
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        case AVCOL_TRC_SMPTE2084: return .pq
        default: return nil
        }
    }

    /// What a mapped frame is: a video's yuv420p (limited range), or a still's rgb24.
    enum Output { case video, still }

    private let util: cff_util
    private let kind: Output
    private var graph: FilterGraph?
    private var key: (Int32, Int32, Int32, Transfer)?
    private let output: UnsafeMutablePointer<AVFrame>

    init(util: cff_util, output kind: Output = .video) throws {
        _ = try FFmpegLibraries.filter()
        guard let out = util.av_frame_alloc() else { throw MediaPrepError(.decodeFailed, "out of memory") }
        (self.util, self.kind, output) = (util, kind, out)
    }

    deinit {
        var o: UnsafeMutablePointer<AVFrame>? = output
        util.av_frame_free(&o)
    }

    /// `frame` as SDR BT.709 (yuv420p or rgb24, as `Output` says); valid until the next call.
    /// - Parameter size: scaled to this first (Lanczos, in the HDR signal), so every float stage after
    ///   it works at this size (a still shrunk on load); nil keeps the frame's.
    func map(_ frame: UnsafeMutablePointer<AVFrame>, _ transfer: Transfer, size: (width: Int, height: Int)? = nil) throws -> UnsafeMutablePointer<AVFrame> {
        let k = (frame.pointee.width, frame.pointee.height, frame.pointee.format, transfer)
        if key.map({ $0 != k }) ?? true { (graph, key) = (nil, nil); graph = try build(frame, transfer, size: size); key = k }
        guard let graph else { throw MediaPrepError(.decodeFailed, "no HDR filter") }
        do {
            // Referenced, not moved: the decoder's frame stays the caller's.
            try graph.push(frame, keepingReference: true)
            guard try graph.pull(into: output) else { throw MediaPrepError(.decodeFailed, "cannot map this HDR frame to SDR") }
        } catch let e as MediaPrepError {
            throw MediaPrepError(.decodeFailed, "cannot map this HDR frame to SDR: \(e.message)")
        }
        return output
    }

    private func build(_ f: UnsafeMutablePointer<AVFrame>, _ transfer: Transfer, size: (width: Int, height: Int)?) throws -> FilterGraph {
        let args = FilterGraph.bufferArguments(like: f, timeBase: AVRational(num: 1, den: 90_000))
        let npl = transfer == .pq ? 203 : 100
        let last = kind == .video ? "zscale=transfer=bt709:matrix=bt709:range=tv:dither=error_diffusion,format=yuv420p"
            : "zscale=transfer=bt709:range=pc:dither=error_diffusion,format=gbrp,format=rgb24"
        let scale = size.map { "w=\($0.width):h=\($0.height):filter=lanczos:" } ?? ""
        // One zscale to linear BT.709 primaries, where a second converted the primaries in float apart:
        // the same frames (framemd5, the phone corpus's clips and the 4K ones, either output), 7.5 → 7.0
        // CPU-seconds for 8 s of 1080p PQ.
        let chain = "[in]zscale=\(scale)transfer=linear:npl=\(npl):primaries=bt709,format=gbrpf32le,tonemap=tonemap=mobius:desat=0,"
            + last + "[out]"
        do {
            return try FilterGraph(chain, inputs: [("in", args)])
        } catch let e as MediaPrepError where e.code == .codecUnavailable {
            throw MediaPrepError(.codecUnavailable, "this FFmpeg cannot map HDR to SDR (zscale, tonemap): \(e.message)")
        }
    }
}
