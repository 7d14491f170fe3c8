import CJpeg

/// JPEG through TurboJPEG, shrinking in the DCT when the caller needs fewer pixels.
public enum JPEGDecoder {
    public struct Header: Sendable {
        public let width: Int
        public let height: Int
        public let isGray: Bool
        public let isCMYK: Bool
        public let subsampling: Int32
    }

    public static func header(_ data: [UInt8]) throws -> Header {
        let h = try TurboJPEGHandle(.decompress)
        return try header(data, handle: h)
    }

    static func header(_ data: [UInt8], handle h: TurboJPEGHandle) throws -> Header {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        var w: Int32 = 0, hgt: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let rc = data.withUnsafeBufferPointer {
            tjDecompressHeader3(h.raw, $0.baseAddress, UInt(data.count), &w, &hgt, &sub, &cs)
        }
        guard rc == 0 else {
            let code: MediaPrepError.Code = data.count < 200 ? .truncated : .corrupt
            throw MediaPrepError(code, "not a readable JPEG header: \(h.lastError)")
        }
        guard w > 0, hgt > 0 else { throw MediaPrepError(.invalidDimensions, "JPEG has zero size") }
        return Header(
            width: Int(w), height: Int(hgt),
            isGray: cs == Int32(TJCS_GRAY.rawValue),
            isCMYK: cs == Int32(TJCS_CMYK.rawValue) || cs == Int32(TJCS_YCCK.rawValue),
            subsampling: sub)
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
        let h = try TurboJPEGHandle(.decompress)
        let hdr = try header(data, handle: h)
        let d = scaleDenominator(width: hdr.width, height: hdr.height, options: options)
        let w = (hdr.width + d - 1) / d, ht = (hdr.height + d - 1) / d
        guard w * ht <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(hdr.width)×\(hdr.height) is over the \(options.maxPixels)-pixel limit")
        }
        let gray = hdr.isGray || (lumaOnly && !hdr.isCMYK)
        let layout: PixelLayout = gray ? .gray : .rgb
        let tjFormat: TJPF = hdr.isCMYK ? TJPF_CMYK : (gray ? TJPF_GRAY : TJPF_RGB)
        let channels = hdr.isCMYK ? 4 : layout.channels
        var out = PixelBuffer.storage(w * ht * channels)
        let rc = data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(h.raw, src.baseAddress, UInt(data.count), dst.baseAddress,
                              Int32(w), Int32(w * channels), Int32(ht), Int32(tjFormat.rawValue),
                              TJFLAG_ACCURATEDCT)
            }
        }
        if rc != 0 {
            let message = h.lastError
            // Benign warnings (extraneous bytes) still give a full image; a premature end does not.
            if !h.lastErrorIsWarning || message.contains("Premature end") {
                let code: MediaPrepError.Code = message.contains("Premature end") ? .truncated : .corrupt
                throw MediaPrepError(code, "JPEG data is damaged: \(message)")
            }
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
