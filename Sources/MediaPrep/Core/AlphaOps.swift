/// Transparency checks and flattening, as SimpleX's `imageHasAlpha` and a white chat bubble need.
public enum AlphaOps {
    /// True only when some pixel is not fully opaque; an RGBA file that is all 255 counts as opaque.
    public static func hasRealAlpha(_ image: PixelBuffer) -> Bool {
        guard image.layout == .rgba else { return false }
        return image.bytes.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return true }
                i += 4
            }
            return false
        }
    }

    /// Composites on white, the background a viewer shows behind a transparent image.
    public static func flattenOnWhite(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba else { return image }
        var out = [UInt8](repeating: 0, count: image.pixelCount * 3)
        image.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for i in 0..<image.pixelCount {
                    let a = Int(s[i * 4 + 3])
                    let inv = (255 - a) * 255
                    for k in 0..<3 {
                        d[i * 3 + k] = UInt8((Int(s[i * 4 + k]) * a + inv + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, layout: .rgb, bytes: out)
    }

    /// Drops an alpha channel that carries nothing, so the image can go the JPEG way.
    public static func droppingOpaqueAlpha(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba, !hasRealAlpha(image) else { return image }
        return flattenOnWhite(image)
    }
}
