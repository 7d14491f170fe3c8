import CFFmpeg
import CJpeg

extension Resizer {
    /// `src` scaled to `width`×`height` in JPEG's planes: `JPEGEncoder().planes(resize(…))` byte for
    /// byte, with neither the packed RGB image nor the whole planar scale ever held: each band of
    /// `BandedScale` is packed and converted into the planes on its thread. A 2500 px hill-climb
    /// candidate held 12.5 MB of packed RGB beside 12.5 MB of planar scale, then the RGB beside its planes.
    static func resizeToPlanes(_ src: PixelBuffer, width: Int, height: Int, fullChroma: Bool, threads: Int = 2) throws -> YUVPlanes {
        guard src.layout == .rgb || src.layout == .rgbx, width > 0, height > 0, (width, height) != (src.width, src.height) else {
            return try JPEGEncoder().planes(try resize(src, width: width, height: height, threads: threads), fullChroma: fullChroma)
        }
        let scale = try BandedScale(src, width: width, height: height, output: .rgb, threads: threads)
        let input = withSlack(src)
        var yuv = YUVPlanes(width: width, height: height, subsampling: fullChroma ? TJSAMP_444 : TJSAMP_420)
        try input.withUnsafeBufferPointer { s in
            guard let sb = s.baseAddress else { return }
            try yuv.withWriter { writer in
                try scale.runPacked(sb, into: AV_PIX_FMT_RGB24, rowBytes: width * 3) { _ in
                    let encoder = try JPEGEncoder()
                    return { rgb, y, rows in
                        try encoder.convert(rgb: rgb, rowBytes: width * 3, width: width, rows: rows, y: y, into: writer)
                    }
                }
            }
        }
        return yuv
    }
}
