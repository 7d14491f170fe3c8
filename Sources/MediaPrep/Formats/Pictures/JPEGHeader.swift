import CJpeg

/// What a JPEG's markers claim, read by libjpeg before any scan: its size, colours and coding, and so
/// what decoding it costs.
package struct JPEGHeader: Sendable {
    package let width: Int
    package let height: Int
    package let isGray: Bool
    package let isCMYK: Bool
    package let isProgressive: Bool
    package let isArithmetic: Bool
    /// Progressive or non-interleaved: libjpeg holds every coefficient of the full-size image.
    package let isMultiScan: Bool

    /// Decoding costs the whole image whatever the DCT scale: memory (every coefficient held) or,
    /// arithmetic-coded, time (no bound on the bits a block takes, so a few hundred bytes can claim
    /// 65500×65500). Such a header is held to the pixel limit at its full size.
    package var costsFullSize: Bool { isMultiScan || isProgressive || isArithmetic }

    /// Parses the markers up to the first scan with libjpeg itself (benign warnings such as stray
    /// bytes before a marker are tolerated, as libjpeg, browsers and phones tolerate them).
    package init(_ data: [UInt8]) throws {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        var info = cjpeg_header_info()
        let rc = data.withUnsafeBufferPointer { cjpeg_read_header($0.baseAddress, UInt(data.count), &info) }
        guard rc == 0 else {
            let message = withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let code: MediaPrepError.Code = data.count < 200 || message.contains("Premature end") ? .truncated : .corrupt
            throw MediaPrepError(code, "not a readable JPEG header: \(message)")
        }
        guard info.width > 0, info.height > 0 else { throw MediaPrepError(.invalidDimensions, "JPEG has zero size") }
        (width, height) = (Int(info.width), Int(info.height))
        isGray = info.colorspace == cjpeg_space_gray()
        isCMYK = info.colorspace == cjpeg_space_cmyk() || info.colorspace == cjpeg_space_ycck()
        (isProgressive, isArithmetic, isMultiScan) = (info.progressive != 0, info.arithmetic != 0, info.multiscan != 0)
    }
}
