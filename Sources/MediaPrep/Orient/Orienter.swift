/// Turns stored pixels upright; a pure copy, so it runs after resizing on the smaller image.
package enum Orienter {
    package static func apply(_ o: ExifOrientation, to src: PixelBuffer) -> PixelBuffer {
        if o == .up { return src }
        let w = src.width, h = src.height, c = src.layout.channels
        let (dw, dh) = o.swapsDimensions ? (h, w) : (w, h)
        var out = PixelBuffer.storage(src.bytes.count)
        src.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for y in 0..<h {
                    for x in 0..<w {
                        // Destination of stored pixel (x, y) in the upright image.
                        let (dx, dy): (Int, Int)
                        switch o {
                        case .up: (dx, dy) = (x, y)
                        case .upMirrored: (dx, dy) = (w - 1 - x, y)
                        case .down: (dx, dy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (dx, dy) = (x, h - 1 - y)
                        case .leftMirrored: (dx, dy) = (y, x)
                        case .right: (dx, dy) = (h - 1 - y, x)
                        case .rightMirrored: (dx, dy) = (h - 1 - y, w - 1 - x)
                        case .left: (dx, dy) = (y, w - 1 - x)
                        }
                        let si = (y * w + x) * c
                        let di = (dy * dw + dx) * c
                        for k in 0..<c { d[di + k] = s[si + k] }
                    }
                }
            }
        }
        return PixelBuffer(width: dw, height: dh, layout: src.layout, storage: out)
    }
}
