/// Quantisation table sets for the libjpeg encode path (`cjpeg_encode_planes`), natural order; the
/// public numbers mozjpeg ships (jcparam.c), for measuring against libjpeg's Annex K tables.
enum QuantTables: String, Sendable {
    case annexK = "annexk"
    /// mozjpeg's default: N. Robidoux's tables from the ImageMagick forum, one set for luma and chroma.
    case robidoux
    /// mozjpeg's set 2, tuned for MS-SSIM on the Kodak images.
    case mssim

    var luma: [UInt32] {
        switch self {
        case .annexK:
            return [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
        case .robidoux:
            return [16, 16, 16, 18, 25, 37, 56, 85, 16, 17, 20, 27, 34, 40, 53, 75, 16, 20, 24, 31, 43, 62, 91, 135,
                    18, 27, 31, 40, 53, 74, 106, 156, 25, 34, 43, 53, 69, 94, 131, 189, 37, 40, 62, 74, 94, 124, 169, 238,
                    56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418]
        case .mssim:
            return [12, 17, 20, 21, 30, 34, 56, 63, 18, 20, 20, 26, 28, 51, 61, 55, 19, 20, 21, 26, 33, 58, 69, 55,
                    26, 26, 26, 30, 46, 87, 86, 66, 31, 33, 36, 40, 46, 96, 100, 73, 40, 35, 46, 62, 81, 100, 111, 91,
                    46, 66, 76, 86, 102, 121, 120, 101, 68, 90, 90, 96, 113, 102, 105, 103]
        }
    }

    var chroma: [UInt32] {
        switch self {
        case .annexK:
            return [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
                    47, 66, 99, 99, 99, 99, 99, 99] + Array(repeating: 99, count: 32)
        case .robidoux:
            return luma
        case .mssim:
            return [8, 12, 15, 15, 86, 96, 96, 98, 13, 13, 15, 26, 90, 96, 99, 98, 12, 15, 18, 96, 99, 99, 99, 99,
                    17, 16, 90, 96, 99, 99, 99, 99, 96, 96, 99, 99, 99, 99, 99, 99] + Array(repeating: 99, count: 24)
        }
    }
}
