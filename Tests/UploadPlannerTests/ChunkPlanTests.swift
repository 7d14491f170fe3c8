import Testing
@testable import UploadPlanner

/// Expected values come from a literal transcription of simplexmq's prepareChunkSizes and
/// encryptFile; the name "f" makes the overhead 27 bytes (3 header + 8 length + 16 tag).
@Suite struct ChunkPlanTests {
    static let K: Int64 = 65_536, Q: Int64 = 262_144, M: Int64 = 1_048_576, F: Int64 = 4_194_304

    static let table: [(size: Int64, chunks: [(Int64, Int)], encrypted: Int64, padding: Int64)] = [
        (0, [(K, 1)], 65_536, 65_509),
        (1, [(K, 1)], 65_536, 65_508),
        (65_508, [(K, 1)], 65_536, 1),
        (65_509, [(K, 1)], 65_536, 0),                        // payload exactly one 64 KiB chunk
        (65_510, [(K, 2)], 131_072, 65_535),
        (131_045, [(K, 2)], 131_072, 0),
        (131_046, [(K, 3)], 196_608, 65_535),
        (196_581, [(K, 3)], 196_608, 0),                      // payload = ¾·256 KiB: still small chunks
        (196_582, [(Q, 1)], 262_144, 65_535),                 // one past ¾: one 256 KiB chunk
        (261_120, [(Q, 1)], 262_144, 997),
        (262_117, [(Q, 1)], 262_144, 0),
        (262_118, [(Q, 1), (K, 1)], 327_680, 65_535),
        (786_404, [(Q, 3)], 786_432, 1),
        (786_405, [(Q, 3)], 786_432, 0),                      // payload = ¾·1 MiB
        (786_406, [(M, 1)], 1_048_576, 262_143),
        (1_048_549, [(M, 1)], 1_048_576, 0),
        (1_048_550, [(M, 1), (Q, 1)], 1_310_720, 262_143),
        (3_145_701, [(M, 3)], 3_145_728, 0),                  // payload = ¾·4 MiB
        (3_145_702, [(F, 1)], 4_194_304, 1_048_575),
        (4_194_277, [(F, 1)], 4_194_304, 0),
        (4_194_278, [(F, 1), (M, 1)], 5_242_880, 1_048_575),
        (5_242_880, [(F, 1), (M, 2)], 6_291_456, 1_048_549),
        (8_388_581, [(F, 2)], 8_388_608, 0),
        (8_388_582, [(F, 2), (M, 1)], 9_437_184, 1_048_575),
        (12_582_913, [(F, 3), (M, 1)], 13_631_488, 1_048_548),
        (1_073_741_824, [(F, 256), (M, 1)], 1_074_790_400, 1_048_549),
    ]

    @Test(arguments: table.indices)
    func chunkPlanMatchesSimplexmq(i: Int) {
        let row = Self.table[i]
        let plan = XFTPChunkPlan(fileSize: row.size, fileName: "f")
        let expected = row.chunks.flatMap { Array(repeating: $0.0, count: $0.1) }
        #expect(plan.chunks == expected, "size \(row.size)")
        #expect(plan.encryptedSize == row.encrypted)
        #expect(plan.padding == row.padding)
        #expect(plan.payloadSize == row.size + 27)
    }

    @Test func specExample() {
        let p = XFTPChunkPlan(fileSize: 261_120, fileName: "IMG_20261122_120000.jpg")
        #expect(p.payloadSize == 261_169)
        #expect(p.chunks == [262_144])
        #expect(p.padding == 975)
    }

    @Test func everyPlanCoversItsPayload() {
        // Randomised sweep: chunks always cover the payload and padding is never negative.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let size = Int64.random(in: 0...1_073_741_824, using: &rng)
            let p = XFTPChunkPlan(fileSize: size, fileName: "file.bin")
            #expect(p.encryptedSize >= p.payloadSize)
            #expect(p.padding >= 0)
            #expect(p.chunks.allSatisfy { XFTPChunkPlan.chunkSizes.contains($0) })
            #expect(Set(p.chunks).count <= 2)
        }
    }

    @Test func nonASCIINameCountsUTF8Bytes() {
        let ascii = XFTPChunkPlan(fileSize: 1000, fileName: "abc")
        let cyrillic = XFTPChunkPlan(fileSize: 1000, fileName: "фото.jpg")  // 4×2 + 4 bytes
        #expect(ascii.header.encodedSize == 5)
        #expect(cyrillic.header.encodedSize == 14)
        #expect(cyrillic.payloadSize == 1000 + 14 + 24)
        #expect(cyrillic.padding == ascii.padding - 9)
    }

    @Test func longNamesAreCutTo255BytesKeepingTheExtension() {
        let long = String(repeating: "é", count: 200) + ".jpeg"  // 405 bytes
        let h = XFTPFileHeader(fileName: long)
        #expect(h.fileName.utf8.count <= 255)
        #expect(h.fileName.hasSuffix(".jpeg"))
        #expect(h.encodedSize == h.fileName.utf8.count + 2)
        let exact = String(repeating: "a", count: 255)
        #expect(XFTPFileHeader(fileName: exact).fileName == exact)
        #expect(XFTPFileHeader(fileName: exact + "b").fileName.utf8.count == 255)
    }

    @Test(arguments: [(0, 4), (1, 4), (4, 4), (5, 8), (8, 8), (9, 16), (100, 128), (1000, 1024)])
    func recipientKeys(n: Int, keys: Int) {
        #expect(XFTPChunkPlan.recipientKeys(recipients: n) == keys)
    }
}
