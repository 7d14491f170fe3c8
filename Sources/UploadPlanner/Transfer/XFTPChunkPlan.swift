/// XFTP chunking exactly as simplexmq's `prepareChunkSizes` and `encryptFile` do it.
public struct XFTPChunkPlan: Sendable, Equatable {
    public static let chunkSizes: [Int64] = [64 << 10, 256 << 10, 1 << 20, 4 << 20]
    /// 8-byte length prefix plus 16-byte Poly1305 tag around the encrypted payload.
    public static let fileSizeLength: Int64 = 8
    public static let authTagSize: Int64 = 16

    public let fileSize: Int64
    public let header: XFTPFileHeader
    public let payloadSize: Int64
    public let chunks: [Int64]

    public init(fileSize: Int64, fileName: String) {
        self.fileSize = fileSize
        header = XFTPFileHeader(fileName: fileName)
        payloadSize = fileSize + Int64(header.encodedSize) + Self.fileSizeLength + Self.authTagSize
        chunks = Self.prepareChunkSizes(payloadSize)
    }

    public var encryptedSize: Int64 { chunks.reduce(0, +) }
    /// `'#'` bytes simplexmq appends so the ciphertext fills the chunks exactly.
    public var padding: Int64 { encryptedSize - Self.authTagSize - (fileSize + Int64(header.encodedSize)) - Self.fileSizeLength }

    /// The (small, big) pair is fixed once from the whole payload, then the remainder is split.
    public static func prepareChunkSizes(_ size: Int64) -> [Int64] {
        func threeQuarters(_ s: Int64) -> Int64 { s * 3 / 4 }
        let c = chunkSizes
        let (small, big): (Int64, Int64)
        if size > threeQuarters(c[3]) { (small, big) = (c[2], c[3]) }
        else if size > threeQuarters(c[2]) { (small, big) = (c[1], c[2]) }
        else { (small, big) = (c[0], c[1]) }
        var out: [Int64] = []
        var rest = size
        while rest > 0 {
            if rest >= big {
                out += Array(repeating: big, count: Int(rest / big))
                rest %= big
            } else if rest > threeQuarters(big) {
                out.append(big)
                rest = 0
            } else {
                out += Array(repeating: small, count: Int((rest + small - 1) / small))
                rest = 0
            }
        }
        return out
    }

    /// Recipient keys requested per chunk: the next power of two of the fan-out, at least 4.
    public static func recipientKeys(recipients: Int) -> Int {
        var k = 1
        while k < recipients && k < 1 << 40 { k <<= 1 }  // capped: a shift past Int's width would loop for ever
        return max(4, k)
    }
}
