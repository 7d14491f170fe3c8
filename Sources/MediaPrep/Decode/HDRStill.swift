import CFFmpeg
import CHeif

/// An HDR AVIF or HEIC still (BT.2020 with PQ or HLG, as an HDR export or an Android camera writes)
/// mapped to SDR as an HDR video frame is (`HDRToSDR`): libheif's 10–12-bit RGB, its transfer and
/// primaries tagged, through zscale and tonemap to 8-bit sRGB. Before, libheif's samples were cut to
/// 8 bits and shown as if SDR (the phone corpus's HDR scene as a PQ AVIF: ΔE2000 mean 11.0 against
/// the scene; HLG 11.4).
enum HDRStill {
    static func decode(_ heif: cheif, _ h: OpaquePointer, _ hdr: (transfer: HDRToSDR.Transfer, primaries: Int), alpha: Bool,
                       format: MediaFormat, orientation: ExifOrientation) throws -> DecodedImage {
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
        // Samples widened to 16 bits by repeating their top bits (1023 → 65535); alpha kept at 8.
        let channels = alpha ? 4 : 3, (up, down) = (16 - depth, 2 * depth - 16)
        var alphas = alpha ? PixelBuffer.storage(w * ht) : []
        let rowBytes = Int(frame.pointee.linesize.0)
        alphas.withUnsafeMutableBufferPointer { a in
            for y in 0..<ht {
                let src = UnsafeRawPointer(plane + y * Int(stride)).assumingMemoryBound(to: UInt16.self)
                let out = UnsafeMutableRawPointer(dst + y * rowBytes).assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    for c in 0..<3 {
                        let v = UInt16(littleEndian: src[x * channels + c])
                        out[x * 3 + c] = (v << up | v >> down).littleEndian
                    }
                    if alpha, let ab = a.baseAddress { ab[y * w + x] = UInt8(truncatingIfNeeded: UInt16(littleEndian: src[x * 4 + 3]) >> (depth - 8)) }
                }
            }
        }
        // The mapped frame is the mapper's: it lives until the copy below is made.
        let mapper = try HDRToSDR(util: util, output: .still)
        defer { withExtendedLifetime(mapper) {} }
        let mapped = try mapper.map(frame, hdr.transfer)
        guard mapped.pointee.format == AV_PIX_FMT_RGB24.rawValue, Int(mapped.pointee.width) == w, Int(mapped.pointee.height) == ht,
              let rgb = mapped.pointee.data.0 else {
            throw MediaPrepError(.decodeFailed, "cannot map this HDR picture to SDR")
        }
        let layout: PixelLayout = alpha ? .rgba : .rgb
        var out = PixelBuffer.storage(w * ht * layout.channels)
        let mappedRow = Int(mapped.pointee.linesize.0)
        out.withUnsafeMutableBufferPointer { o in
            guard let base = o.baseAddress else { return }
            for y in 0..<ht {
                let from = rgb + y * mappedRow
                if !alpha {
                    (base + y * w * 3).update(from: from, count: w * 3)
                    continue
                }
                for x in 0..<w {
                    let d = base + (y * w + x) * 4
                    (d[0], d[1], d[2], d[3]) = (from[x * 3], from[x * 3 + 1], from[x * 3 + 2], alphas[y * w + x])
                }
            }
        }
        return DecodedImage(pixels: PixelBuffer(width: w, height: ht, layout: layout, storage: out), format: format,
                            sourceWidth: w, sourceHeight: ht, orientation: orientation)
    }
}
