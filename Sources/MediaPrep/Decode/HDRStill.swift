import CFFmpeg
import CHeif

/// An HDR AVIF or HEIC still (BT.2020 with PQ or HLG, as an HDR export or an Android camera writes)
/// mapped to SDR as an HDR video frame is (`HDRToSDR`): libheif's 10–12-bit RGB, its transfer and
/// primaries tagged, through zscale and tonemap to 8-bit sRGB. Before, libheif's samples were cut to
/// 8 bits and shown as if SDR (the phone corpus's HDR scene as a PQ AVIF: ΔE2000 mean 11.0 against
/// the scene; HLG 11.4).
enum HDRStill {
    /// - Parameter minimum: the smallest size the caller needs: the picture is halved while it stays at
    ///   least that (as a large JPEG's DCT scaling does), before the float stages. Each megapixel they
    ///   keep costs about 58 MiB (a 9 MP PQ AVIF peaked at 617 MiB whole; the same halved, 231 MiB).
    static func decode(_ heif: cheif, _ h: OpaquePointer, _ hdr: (transfer: HDRToSDR.Transfer, primaries: Int), alpha: Bool,
                       format: MediaFormat, orientation: ExifOrientation, minimum: (width: Int, height: Int)?) throws -> DecodedImage {
        var image: OpaquePointer? = nil
        let chroma = alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE
        let error = heif.heif_decode_image(h, &image, heif_colorspace_RGB, chroma, nil)
        guard error.code == heif_error_Ok, let img = image else {
            if let image { heif.heif_image_release(image) }
            throw MediaPrepError(.corrupt, "the \(format.rawValue) image did not decode")
        }
        defer { heif.heif_image_release(img) }
        var stride: Int32 = 0
        guard let plane = heif.heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride) else {
            throw MediaPrepError(.corrupt, "the \(format.rawValue) image has no pixels")
        }
        let depth = Int(heif.heif_image_get_bits_per_pixel_range(img, heif_channel_interleaved))
        guard (9...16).contains(depth) else { throw MediaPrepError(.corrupt, "the \(format.rawValue) image has \(depth)-bit samples") }
        let (w, ht) = (Int(heif.heif_image_get_width(img, heif_channel_interleaved)), Int(heif.heif_image_get_height(img, heif_channel_interleaved)))
        // Samples widened to 16 bits by repeating their top bits (1023 → 65535).
        let channels = alpha ? 4 : 3, (up, down) = (16 - depth, 2 * depth - 16)
        return try map(width: w, height: ht, alpha: alpha, hdr, format: format, orientation: orientation, minimum: minimum) { y, x, c in
            let v = UInt16(littleEndian: UnsafeRawPointer(plane + y * Int(stride)).assumingMemoryBound(to: UInt16.self)[x * channels + c])
            return v << up | v >> down
        }
    }

    /// 16-bit RGB(A) samples (`sample(y, x, channel)`, full range, in `hdr`'s transfer and primaries)
    /// through `HDRToSDR` to 8-bit sRGB, halved first while the picture stays at least `minimum`.
    static func map(width w: Int, height ht: Int, alpha: Bool, _ hdr: (transfer: HDRToSDR.Transfer, primaries: Int), format: MediaFormat,
                    orientation: ExifOrientation, minimum: (width: Int, height: Int)?,
                    sample: (Int, Int, Int) -> UInt16) throws -> DecodedImage {
        let d = DecodeOptions.halving(width: w, height: ht, minimum: minimum)
        let (ow, oh) = ((w + d - 1) / d, (ht + d - 1) / d)
        let util = try FFmpegLibraries.util()
        guard let frame = util.av_frame_alloc() else { throw MediaPrepError(.outOfMemory, "no memory for an HDR frame") }
        defer {
            var f: UnsafeMutablePointer<AVFrame>? = frame
            util.av_frame_free(&f)
        }
        frame.pointee.format = AV_PIX_FMT_RGB48LE.rawValue
        (frame.pointee.width, frame.pointee.height) = (Int32(w), Int32(ht))
        guard util.av_frame_get_buffer(frame, 0) >= 0, let dst = frame.pointee.data.0 else {
            throw MediaPrepError(.outOfMemory, "no memory for an HDR frame")
        }
        frame.pointee.color_trc = hdr.transfer == .pq ? AVCOL_TRC_SMPTE2084 : AVCOL_TRC_ARIB_STD_B67
        frame.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(hdr.primaries))  // H.273 code points, as FFmpeg numbers them
        frame.pointee.colorspace = AVCOL_SPC_RGB
        frame.pointee.color_range = AVCOL_RANGE_JPEG
        // Alpha kept at 8 bits.
        var alphas = alpha ? PixelBuffer.storage(w * ht) : []
        let rowBytes = Int(frame.pointee.linesize.0)
        alphas.withUnsafeMutableBufferPointer { a in
            for y in 0..<ht {
                let out = UnsafeMutableRawPointer(dst + y * rowBytes).assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    for c in 0..<3 { out[x * 3 + c] = sample(y, x, c).littleEndian }
                    if alpha, let ab = a.baseAddress { ab[y * w + x] = UInt8(truncatingIfNeeded: sample(y, x, 3) >> 8) }
                }
            }
        }
        // The mapped frame is the mapper's: it lives until the copy below is made.
        let mapper = try HDRToSDR(util: util, output: .still)
        defer { withExtendedLifetime(mapper) {} }
        let mapped = try mapper.map(frame, hdr.transfer, size: d > 1 ? (ow, oh) : nil)
        guard mapped.pointee.format == AV_PIX_FMT_RGB24.rawValue, Int(mapped.pointee.width) == ow, Int(mapped.pointee.height) == oh,
              let rgb = mapped.pointee.data.0 else {
            throw MediaPrepError(.decodeFailed, "cannot map this HDR picture to SDR")
        }
        let layout: PixelLayout = alpha ? .rgba : .rgb
        // Alpha, when there is any, scaled as the colour was (Lanczos, the same size).
        let alphaPlane = alpha && d > 1
            ? try Resizer.resize(PixelBuffer(width: w, height: ht, layout: .gray, storage: alphas), width: ow, height: oh, threads: 1).bytes
            : alphas
        var out = PixelBuffer.storage(ow * oh * layout.channels)
        let mappedRow = Int(mapped.pointee.linesize.0)
        out.withUnsafeMutableBufferPointer { o in
            guard let base = o.baseAddress else { return }
            for y in 0..<oh {
                let from = rgb + y * mappedRow
                if !alpha {
                    (base + y * ow * 3).update(from: from, count: ow * 3)
                    continue
                }
                for x in 0..<ow {
                    let p = base + (y * ow + x) * 4
                    (p[0], p[1], p[2], p[3]) = (from[x * 3], from[x * 3 + 1], from[x * 3 + 2], alphaPlane[y * ow + x])
                }
            }
        }
        return DecodedImage(pixels: PixelBuffer(width: ow, height: oh, layout: layout, storage: out), format: format,
                            sourceWidth: w, sourceHeight: ht, orientation: orientation)
    }
}
