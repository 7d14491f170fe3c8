/// SPEC section 6's score in-process, so benchmarks compare tools without Python: luma SSIM at
/// the size a phone shows, both images upright and flattened on white.
package enum QualityScore {
    /// - Parameters:
    ///   - source: the original file's bytes.
    ///   - prepared: the prepared file's bytes (any format the decoders read).
    package static func score(source: [UInt8], sourcePath: String?, prepared: [UInt8], preparedPath: String? = nil,
                             displaySide: Int = 1600) throws -> Double {
        let s = try viewable(source, path: sourcePath)
        let p = try viewable(prepared, path: preparedPath)
        let size = ImageProfile.displaySize(width: s.width, height: s.height, displaySide: displaySide)
        let sd = try Resizer.resize(s, width: size.width, height: size.height)
        let pd = try Resizer.resize(p, width: size.width, height: size.height)
        return SSIM.mean(SSIM.luma(sd), SSIM.luma(pd), width: size.width, height: size.height)
    }

    private static func viewable(_ data: [UInt8], path: String?) throws -> PixelBuffer {
        let d = try ImageLoader.load(data: data, path: path)
        let upright = Orienter.apply(d.orientation, to: d.pixels)
        return AlphaOps.flattenOnWhite(upright)
    }
}
