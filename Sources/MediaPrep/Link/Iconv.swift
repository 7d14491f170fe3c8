import Glibc

/// A page's bytes in a legacy charset as text, through glibc's iconv (its gconv modules: Shift_JIS,
/// EUC-JP, the ISO and Windows code pages), where Foundation's decoders would link all of Foundation.
enum Iconv {
    /// The text, or nil when iconv lacks the charset or the bytes are not valid in it.
    static func decode(_ bytes: [UInt8], from charset: String) -> String? {
        let cd = iconv_open("UTF-8", charset)
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        defer { iconv_close(cd) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 16)  // UTF-8 takes at most 4 bytes a character
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr = inBuf.baseAddress, inLeft = inBuf.count
                var outPtr = outBuf.baseAddress, outLeft = outBuf.count
                guard iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) != -1, inLeft == 0 else { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let written else { return nil }
        return String(validating: output.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
