import Foundation
import Testing
@testable import MediaPrep

/// The library's own replacements for what it took from Foundation proper (linked, that cost every
/// start 0.8 ms): each gives what Foundation gave, checked against Foundation here.
@Suite struct FoundationFreeTests {
    @Test func pathsAsNSStringSplitsThem() {
        for p in ["a/b/c.jpg", "/c.jpg", "c.jpg", "a/b/", "/", "", "a//b.tar.gz", "dir/.profile", "x/y.", "/a/b/c", "./photo.HEIC", "a.b/c", "my file.a b", "a..b", "a/.hidden.jpg"] {
            let ns = p as NSString
            #expect(FilePath.parent(of: p) == ns.deletingLastPathComponent, "parent of \(p)")
            #expect(FilePath.lastComponent(p) == ns.lastPathComponent, "last component of \(p)")
            #expect(FilePath.pathExtension(p) == ns.pathExtension, "extension of \(p)")
        }
    }

    @Test func numbersAsPrintfAndFoundationWriteThem() {
        #expect(String(printf: "%.1f s", 2.25) == String(format: "%.1f s", 2.25))
        #expect(String(printf: "%d:%02d", 3, 7) == "3:07")
        #expect(String(printf: "%8.1f ms", 12.345) == String(format: "%8.1f ms", 12.345))
        #expect(String(printf: "%0300d", 5).count == 300)  // longer than the first buffer
        #expect(String(printf: "%d %d %u %x", Int32(-1), Int64(1) << 40, UInt32.max, UInt8(255)) == "-1 1099511627776 4294967295 ff")
        #expect(String(printf: "%5.1f%%", 99.44) == " 99.4%")
        #expect(1_047_552.grouped == "1,047,552")
        #expect(999.grouped == "999")
        #expect(0.grouped == "0")
        #expect((-1234).grouped == "-1,234")
        #expect(UInt64(1_000_000).grouped == "1,000,000")
        #expect(String(seconds: 30) == "30")
        #expect(String(seconds: 1.5) == "1.5")
        #expect("ab".padded(to: 4) == "ab  ")
        #expect("abcdef".padded(to: 4) == "abcdef")
    }

    @Test func trimmingAndSearchingAsFoundationDid() {
        for s in ["  a b \t", "\n x \r\n", "", "   ", "\u{00A0}y\u{2003}", "z"] {
            #expect(s.trimmingSpaces() == s.trimmingCharacters(in: .whitespaces), "\(s.debugDescription)")
            #expect(s.trimmingWhitespace() == s.trimmingCharacters(in: .whitespacesAndNewlines), "\(s.debugDescription)")
        }
        let html = "<head><TITLE>Hi</Title><SCRIPT>x</script></head>"
        let r = html.rangeIgnoringASCIICase(of: "</title", from: html.startIndex)
        #expect(r.map { html[$0] } == "</Title")
        #expect(html.rangeIgnoringASCIICase(of: "</style", from: html.startIndex) == nil)
        let after = html.rangeIgnoringASCIICase(of: "<script", from: html.startIndex)
        #expect(after.map { html[$0.upperBound...].hasPrefix(">x") } == true)
    }

    @Test func legacyCharsetsAsFoundationDecodedThem() {
        let texts = [("SHIFT_JIS", String.Encoding.shiftJIS, "日本語のページ"),
                     ("WINDOWS-1251", .windowsCP1251, "Привет"), ("ISO-8859-2", .isoLatin2, "Łódź"),
                     ("UTF-16LE", .utf16LittleEndian, "héllo")]
        for (charset, encoding, text) in texts {
            let bytes = [UInt8](text.data(using: encoding) ?? Data())
            #expect(!bytes.isEmpty)
            #expect(Iconv.decode(bytes, from: charset) == text, "\(charset)")
        }
        #expect(Iconv.decode([0x82], from: "SHIFT_JIS") == nil)       // half a character
        #expect(Iconv.decode([0x41], from: "NO-SUCH-CHARSET") == nil)
        // EUC-JP, which Foundation on Linux decodes but cannot encode (iconv -t EUC-JP wrote these).
        #expect(Iconv.decode([0xC5, 0xEC, 0xB5, 0xFE], from: "EUC-JP") == "東京")
        #expect(HTMLHead.decode([0xC5, 0xEC, 0xB5, 0xFE], charset: "euc-jp") == "東京")
    }

    @Test func byteSearchFindsWhatASliceComparisonFinds() {
        func naive(_ n: [UInt8], _ h: [UInt8], _ from: Int, _ within: Int) -> Int? {
            let end = min(h.count, within)
            guard !n.isEmpty, from >= 0, from <= end - n.count else { return nil }
            return (from...(end - n.count)).first { Array(h[$0..<$0 + n.count]) == n }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let h = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
            let n = (0..<Int.random(in: 0...4, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
            let from = Int.random(in: -1...66, using: &rng), within = Int.random(in: 0...70, using: &rng)
            #expect(Bytes.find(n, in: h, from: from, within: within) == naive(n, h, from, within), "\(n) in \(h) from \(from) within \(within)")
        }
        #expect(Bytes.find(Array("IEND".utf8), in: Array("xxIEND".utf8)) == 2)
        #expect(Bytes.find(Array("IEND".utf8), in: Array("xxIEND".utf8), within: 5) == nil)
    }

    @Test func aConditionWaitTimesOutAndIsWoken() async {
        let c = PosixCondition()
        c.lock()
        #expect(c.wait(seconds: 0.01) == false)
        c.unlock()
        let flag = Locked(false)
        let t = Task.detached {
            try? await Task.sleep(nanoseconds: 20_000_000)
            c.lock(); flag.withLock { $0 = true }; c.broadcast(); c.unlock()
        }
        c.lock()
        while !flag.withLock({ $0 }) { c.wait(seconds: 30) }
        c.unlock()
        await t.value
        #expect(flag.withLock { $0 })
    }
}
