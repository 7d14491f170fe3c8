import CJpeg

/// JPEG through TurboJPEG, shrinking in the DCT when the caller needs fewer pixels.
public enum JPEGDecoder {
    public struct Header: Sendable {
        public let width: Int
        public let height: Int
        public let isGray: Bool
        public let isCMYK: Bool
        public let isProgressive: Bool
        public let isArithmetic: Bool
    }

    /// Parses the markers up to the first scan with libjpeg itself (benign warnings such as stray
    /// bytes before a marker are tolerated, as libjpeg, browsers and phones tolerate them).
    public static func header(_ data: [UInt8]) throws -> Header {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        var info = cjpeg_header_info()
        let rc = data.withUnsafeBufferPointer { cjpeg_read_header($0.baseAddress, UInt(data.count), &info) }
        guard rc == 0 else {
            let message = withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let code: MediaPrepError.Code = data.count < 200 || message.contains("Premature end") ? .truncated : .corrupt
            throw MediaPrepError(code, "not a readable JPEG header: \(message)")
        }
        guard info.width > 0, info.height > 0 else { throw MediaPrepError(.invalidDimensions, "JPEG has zero size") }
        return Header(width: Int(info.width), height: Int(info.height),
                      isGray: info.colorspace == cjpeg_space_gray(),
                      isCMYK: info.colorspace == cjpeg_space_cmyk() || info.colorspace == cjpeg_space_ycck(),
                      isProgressive: info.progressive != 0, isArithmetic: info.arithmetic != 0)
    }

    /// The stored-orientation size a view of `profile` needs: what shrink-on-load may go down to.
    static func minimumSize(_ h: Header, orientation: ExifOrientation, profile: ImageProfile) -> (width: Int, height: Int) {
        let (dw, dh) = orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
        let view = profile.viewSize(width: dw, height: dh)
        return orientation.swapsDimensions ? (view.height, view.width) : (view.width, view.height)
    }

    /// The size `decode` produces for this header and these options (after DCT scaling).
    static func decodedSize(_ h: Header, options: DecodeOptions) -> (width: Int, height: Int) {
        let d = scaleDenominator(width: h.width, height: h.height, options: options)
        return ((h.width + d - 1) / d, (h.height + d - 1) / d)
    }

    /// The power-of-two DCT scale (1, 1/2, 1/4, 1/8) that keeps both sides at or above the minimum.
    static func scaleDenominator(width: Int, height: Int, options: DecodeOptions) -> Int {
        guard let mw = options.minimumWidth, let mh = options.minimumHeight else { return 1 }
        var best = 1
        for d in [2, 4, 8] {
            let sw = (width + d - 1) / d, sh = (height + d - 1) / d
            if sw >= mw && sh >= mh { best = d }
        }
        return best
    }

    /// - Parameter lumaOnly: decode just Y (JPEG's full-range BT.601 luma, the metric's "L"),
    ///   skipping chroma entirely; what scoring needs, at a fraction of the cost.
    public static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions(), lumaOnly: Bool = false) throws -> DecodedImage {
        let hdr = try header(data)
        let d = scaleDenominator(width: hdr.width, height: hdr.height, options: options)
        let (w, ht) = decodedSize(hdr, options: options)
        guard w * ht <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(hdr.width)×\(hdr.height) is over the \(options.maxPixels)-pixel limit")
        }
        // Huffman coding spends at least one bit per 8×8 luma block: a frame header claiming more
        // blocks than the file has bits (65000×65000 in 43 KB) is refused before allocating.
        let blocks = Double((hdr.width + 7) / 8) * Double((hdr.height + 7) / 8)
        if !hdr.isArithmetic, Double(data.count) * 8 < blocks {
            throw MediaPrepError(.truncated, "the frame header claims \(hdr.width)×\(hdr.height), more than \(data.count) bytes can hold")
        }
        let gray = hdr.isGray || (lumaOnly && !hdr.isCMYK)
        let layout: PixelLayout = gray ? .gray : .rgb
        let space = hdr.isCMYK ? cjpeg_space_cmyk() : (gray ? cjpeg_space_gray() : cjpeg_space_rgb())
        let channels = hdr.isCMYK ? 4 : layout.channels
        var out = PixelBuffer.storage(w * ht * channels)
        var damage: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let rc = data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                cjpeg_decode(src.baseAddress, UInt(data.count), Int32(d), space, dst.baseAddress, Int32(w), Int32(ht),
                             &damage, &message, Int32(message.count))
            }
        }
        if rc != 0 {
            // A damaging warning (premature end, bad entropy code, lost sync) means missing pixels:
            // never sent as if the picture were fine. Benign ones never get here.
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let code: MediaPrepError.Code = (rc > 0 && cjpeg_is_eof_warning(damage) != 0) || rc == -2 ? .truncated : .corrupt
            throw MediaPrepError(code, "JPEG data is damaged: \(text)")
        }
        let pixels: PixelBuffer
        if hdr.isCMYK {
            pixels = CMYKConverter.toRGB(out, width: w, height: ht, adobeInverted: hasAdobeMarker(data))
        } else {
            pixels = PixelBuffer(width: w, height: ht, layout: layout, storage: out)
        }
        return DecodedImage(pixels: pixels, format: .jpeg, sourceWidth: hdr.width, sourceHeight: hdr.height,
                            orientation: ExifOrientation.fromJPEG(data))
    }

    private static func hasAdobeMarker(_ data: [UInt8]) -> Bool {
        let adobe = Array("Adobe".utf8)
        return JPEGMarkers(data).segments.contains { s in
            s.marker == 0xEE && s.payload.count >= 5
                && Array(data[s.payload.lowerBound..<s.payload.lowerBound + 5]) == adobe
        }
    }
}

/// CMYK JPEGs (print workflows) have no ICC-free exact RGB; the naive product is what browsers and Pillow show.
enum CMYKConverter {
    static func toRGB(_ cmyk: [UInt8], width: Int, height: Int, adobeInverted: Bool) -> PixelBuffer {
        var rgb = PixelBuffer.storage(width * height * 3)
        cmyk.withUnsafeBufferPointer { s in
            rgb.withUnsafeMutableBufferPointer { d in
                for i in 0..<(width * height) {
                    // Adobe writes inverted CMYK: a stored value is already 255 − ink.
                    var c = Int(s[i * 4]), m = Int(s[i * 4 + 1]), y = Int(s[i * 4 + 2]), k = Int(s[i * 4 + 3])
                    if !adobeInverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                    d[i * 3] = UInt8((c * k + 127) / 255)
                    d[i * 3 + 1] = UInt8((m * k + 127) / 255)
                    d[i * 3 + 2] = UInt8((y * k + 127) / 255)
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb, storage: rgb)
    }
}
