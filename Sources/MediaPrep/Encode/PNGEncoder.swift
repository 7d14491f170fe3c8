import CPng

/// PNG through libpng's simplified writer; it writes pixels and sRGB information, no text or Exif.
public enum PNGEncoder {
    public static func encode(_ image: PixelBuffer) throws -> [UInt8] {
        let image = image.layout == .rgbx ? AlphaOps.dropX(image) : image
        var png = png_image()
        png.version = cpng_version()
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = image.layout == .rgba ? cpng_format_rgba() : (image.layout == .rgb ? cpng_format_rgb() : cpng_format_gray())
        defer { png_image_free(&png) }
        // One encode into a worst-case buffer: asking libpng for the size first (a NULL buffer)
        // runs the whole deflate twice, so every PNG trial and preview paid two.
        var size = cpng_size_max(&png)
        guard size > 0 else { throw MediaPrepError(.encodeFailed, "PNG encoding failed: image too large") }
        var out = [UInt8](repeating: 0, count: size)
        let written = image.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                png_image_write_to_memory(&png, dst.baseAddress, &size, 0, src.baseAddress, 0, nil)
            }
        }
        guard written != 0, size > 0 else { throw MediaPrepError(.encodeFailed, "PNG encoding failed") }
        return Array(out.prefix(size))
    }
}
