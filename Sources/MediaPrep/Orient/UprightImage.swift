/// Decoding plus orientation in one step, for callers that want display pixels at full size.
package enum UprightImage {
    package static func load(path: String, options: DecodeOptions = DecodeOptions()) throws -> PixelBuffer {
        let d = try ImageLoader.load(path: path, options: options)
        return Orienter.apply(d.orientation, to: d.pixels)
    }
}
