import CPng

/// Transparency checks and flattening, as SimpleX's `imageHasAlpha` and a white chat bubble need.
package enum AlphaOps {
    /// True only when some pixel is not fully opaque; an RGBA file that is all 255 counts as opaque.
    package static func hasRealAlpha(_ image: PixelBuffer) -> Bool {
        guard image.layout == .rgba else { return false }
        // AND of every pixel word: its alpha byte stays 0xFF only if all alphas are (vectorizes).
        return image.bytes.withUnsafeBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            var acc: UInt32 = 0xFFFF_FFFF
            var start = 0
            while start < words.count {
                let end = min(words.count, start + 65_536)
                for i in start..<end { acc &= words[i] }
                if UInt32(littleEndian: acc) >> 24 != 0xFF { return true }
                start = end
            }
            return false
        }
    }

    /// Composites on white, the background a viewer shows behind a transparent image.
    package static func flattenOnWhite(_ image: PixelBuffer) -> PixelBuffer { flatten(image, onto: 0xFFFFFF) }

    /// Composites on `background` (0xRRGGBB).
    package static func flatten(_ image: PixelBuffer, onto background: UInt32) -> PixelBuffer {
        if image.layout == .rgbx { return dropX(image) }
        guard image.layout == .rgba else { return image }
        let (br, bg, bb) = (Int(background >> 16 & 0xFF), Int(background >> 8 & 0xFF), Int(background & 0xFF))
        var out = PixelBuffer.storage(image.pixelCount * 3)
        // Two halves side by side, eight pixels at a time (`cpng_flatten`; kay-radial-alpha.png,
        // 2560×1440: 26 ms on one core a pixel at a time, 5.0 on two).
        Parallel.pixels(image.pixelCount, from: image.bytes, into: &out, threads: 2) { s, d, range in
            cpng_flatten(s + range.lowerBound * 4, d + range.lowerBound * 3, range.count, UInt32(br), UInt32(bg), UInt32(bb))
        }
        return PixelBuffer(width: image.width, height: image.height, layout: .rgb, storage: out)
    }

    /// Marks an alpha channel that carries nothing as padding (no copy), so the image goes the JPEG way.
    package static func droppingOpaqueAlpha(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba, !hasRealAlpha(image) else { return image }
        return PixelBuffer(width: image.width, height: image.height, layout: .rgbx, storage: image.bytes)
    }

    /// Eight pixels at a time (`cpng_drop_x`; an opaque RGBA picture's 1600×1000 view packed in 0.7–0.8 → 0.4 ms).
    static func dropX(_ image: PixelBuffer) -> PixelBuffer {
        var out = PixelBuffer.storage(image.pixelCount * 3)
        image.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                guard let sb = s.baseAddress, let db = d.baseAddress, s.count >= image.pixelCount * 4 else { return }
                cpng_drop_x(sb, db, image.pixelCount)
            }
        }
        return PixelBuffer(width: image.width, height: image.height, layout: .rgb, storage: out)
    }

    /// Straight alpha from associated (premultiplied): what the pipeline works in, rounded; fully
    /// transparent pixels stay black. For the decoders that hand out premultiplied samples (libtiff's
    /// RGBA, a HEIF or AVIF that says it stores them so).
    static func unpremultiplied(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba else { return image }
        var out = image.bytes
        out.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count - 3, by: 4) {
                let a = Int(p[i + 3])
                guard a > 0, a < 255 else { continue }
                for c in i..<(i + 3) { p[c] = UInt8(min(255, (Int(p[c]) * 255 + a / 2) / a)) }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, layout: .rgba, storage: out)
    }

    /// ⌊x / 255⌋ for 0 ≤ x < 65280 (every result a byte), without a division (checked over that range).
    @inline(__always) static func div255(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: (x + 1 + (x >> 8)) >> 8) }
}
