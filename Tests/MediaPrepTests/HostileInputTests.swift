import Foundation
import Testing
@testable import MediaPrep

/// Regressions: nothing broken goes out, nothing good is refused.
@Suite struct DamagedJPEGTests {
    @Test func prematureEndIsRefusedNotSentGrey() throws {
        for name in ["premature-end.jpg", "claims-3000.jpg", "claims-65000.jpg"] {
            #expect(throws: MediaPrepError.self, "\(name)") { try ImagePreparer().prepare(path: Fixture.path(name)) }
            do { _ = try ImagePreparer().prepare(path: Fixture.path(name)) } catch let e as MediaPrepError {
                #expect(e.code == .truncated, "\(name): \(e)")
            }
        }
    }

    @Test func aClaimThatTheDataCannotHoldIsRefusedBeforeAllocating() throws {
        // 65000×65000 at 1/8 would still be 66 MP (200 MB) of output buffer; refused from the header.
        do {
            _ = try JPEGDecoder.decode(try Fixture.bytes("claims-65000.jpg"), options: DecodeOptions(minimumWidth: 1, minimumHeight: 1))
            Issue.record("decoded")
        } catch let e as MediaPrepError {
            #expect(e.code == .truncated && e.message.contains("more than 43753 bytes can hold"))
        }
    }

    @Test func strayBytesBeforeAMarkerStillPrepare() throws {
        let p = try ImagePreparer().prepare(path: Fixture.path("stray-bytes.jpg"))
        // Upright (orientation 6 read from the real Exif block), stray bytes and Exif gone.
        #expect(p.width == 64 && p.height == 48)
        #expect(JPEGMarkers(p.data).extraneousBytes == 0 && PictureMetadata(jpeg: p.data).isEmpty)
        Quadrants.check(try JPEGDecoder.decode(p.data).pixels, tolerance: 40)
        let item = AttachmentPreparer(outputDirectory: try Fixture.scratch(), timestamp: 0)
            .prepare(path: Fixture.path("stray-bytes.jpg"))
        defer { if let o = item.output { unlink(o) } }
        #expect(item.kind == .image && item.error == nil)
    }

    @Test func truncatedFaststartMP4IsNotSentAsAVideo() throws {
        do {
            _ = try MediaProbe.probe(path: Fixture.path("truncated-faststart.mp4"))
            Issue.record("probed")
        } catch let e as MediaPrepError {
            #expect(e.code == .truncated)
        }
        // The whole file is fine.
        #expect(try MediaProbe.probe(path: Fixture.path("h264.mp4")).kind == .video)
    }
}

/// Every kind of bad input in one batch: a stable code, no output, and the good files still prepared.
@Suite struct BadInputMatrixTests {
    @Test func badInputsFailAloneInOneBatch() async throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        func write(_ name: String, _ bytes: [UInt8]) -> String {
            let p = dir + "/" + name
            _ = fm.createFile(atPath: p, contents: Data(bytes))
            return p
        }
        var rng = SystemRandomNumberGenerator()
        let small = try Fixture.bytes("small.jpg")
        let sticker = try Fixture.bytes("sticker.png")
        // PNG signature + IHDR claiming 100000×100000, and nothing else.
        var ihdr: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        ihdr += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        // A good JPEG whose Exif block is garbage.
        let brokenExif = Array(small[0..<2]) + [0xFF, 0xE1, 0x00, 0x20] + Array("Exif\0\0".utf8) + [UInt8](repeating: 0xA5, count: 24) + Array(small[2...])
        let sparse = dir + "/huge.bin"
        _ = fm.createFile(atPath: sparse, contents: Data(Array(small.prefix(4))))  // a JPEG's magic, then 1 GiB of holes
        truncate(sparse, 1_073_741_824 + 5)
        let cases: [(path: String, expect: MediaPrepError.Code?)] = [
            (write("empty.jpg", []), .emptyInput),
            (write("random.jpg", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }.map { $0 == 0xFF ? 0 : $0 }), nil),  // no known media: a plain file
            (write("notes.png", Array("just some text\n".utf8)), nil),
            (write("cut.jpg", Array(small.prefix(small.count / 2))), .truncated),
            (write("cut.png", Array(sticker.prefix(sticker.count / 2))), .truncated),
            (Fixture.path("truncated.mp4"), .truncated),  // cut before its index: our box walk says where
            (Fixture.path("truncated-faststart.mp4"), .truncated),
            (write("huge.png", ihdr), .tooManyPixels),
            (Fixture.path("claims-65000.jpg"), .truncated),
            (write("broken-exif.jpg", brokenExif), nil),
            (Fixture.path("stray-bytes.jpg"), nil),
            // After its ftyp, a "box" of a type no file has at its top level claiming 1.1 GB: bytes
            // that are no part of it, and nothing left to play.
            (write("fake.mp4", [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0x42, count: 200)), .corrupt),
            (dir + "/missing.jpg", .unreadableFile),
            (dir, .unreadableFile),
            (sparse, .overLimit),
            (write("photo with spaces é ü 写真.jpg", small), nil),
        ]
        let out = dir + "/out"
        var o = BatchOptions(outputDirectory: out, timestamp: 0)
        o.jobs = 2
        let r = await BatchPreparer(o).prepare(cases.map(\.path))
        #expect(r.items.count == cases.count)
        for (item, c) in zip(r.items, cases) {
            if let code = c.expect {
                #expect(item.item.error?.code == code, "\(c.path): \(String(describing: item.item.error))")
                #expect(item.item.output == nil && item.composedMessage == nil)
                #expect(!(item.item.error?.message.isEmpty ?? true))
            } else {
                #expect(item.item.error == nil, "\(c.path): \(String(describing: item.item.error))")
                #expect(item.item.output.map { fm.fileExists(atPath: $0) } == true)
            }
        }
        #expect(r.items[1].item.kind == .file && r.items[2].item.kind == .file)
        #expect(r.items[9].item.kind == .image && r.items[10].item.kind == .image && r.items[15].item.kind == .image)
        // Outputs only for the good ones, and no temporary file left.
        let made = try fm.contentsOfDirectory(atPath: out)
        #expect(made.count == cases.filter { $0.expect == nil }.count)
        #expect(!made.contains { $0.hasSuffix(".tmp") })
        // The sparse file was refused by size: nothing was copied.
        #expect(!made.contains { $0.hasPrefix("huge") })
    }

    @Test func anOutputFolderThatCannotBeWrittenIsAnErrorPerFile() async throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/file", contents: Data([1]))
        let o = BatchOptions(outputDirectory: dir + "/file/out", timestamp: 0)
        let r = await BatchPreparer(o).prepare([Fixture.path("small.jpg"), Fixture.path("voice.m4a")])
        #expect(r.items.allSatisfy { $0.item.error?.code == .writeFailed })
        #expect(r.sendLines.isEmpty)
    }
}

/// A few hundred bytes claiming 65500×65500 cost nothing, and what leaves as an image is cheap for
/// every recipient to decode: within the sent-pixel cap, Huffman-coded, 8-bit.
@Suite struct DecoderBombTests {
    static let bombs: [(String, MediaPrepError.Code)] = [
        ("bomb-huffman.jpg", .truncated), ("bomb-huffman-progressive.jpg", .truncated),
        ("bomb-arithmetic.jpg", .tooManyPixels), ("bomb-arithmetic-progressive.jpg", .tooManyPixels),
    ]

    @Test(arguments: bombs) func probeCheckAndPrepareRefuseAlike(_ bomb: (String, MediaPrepError.Code)) throws {
        let (name, code) = bomb
        let path = Fixture.path(name)
        #expect(try Fixture.bytes(name).count < 500)
        do {
            _ = try MediaProbe.probe(path: path)
            Issue.record("\(name): probe accepted it")
        } catch let e as MediaPrepError {
            #expect(e.code == code, "\(name): probe says \(e)")
        }
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .cannotSend && check.error?.code == code, "\(name): check says \(check.reasons)")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: path)
        #expect(item.error?.code == code && item.output == nil, "\(name): prepare says \(item.error?.description ?? "ok")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    /// Decoding a progressive or arithmetic JPEG costs its full size whatever the DCT scale: held to
    /// the pixel limit at that size, by the decoder too.
    @Test func theDecoderChecksTheFullSizeOfWhatItMustHoldWhole() throws {
        for name in ["bomb-arithmetic.jpg", "bomb-arithmetic-progressive.jpg"] {
            #expect(throws: MediaPrepError.self, "\(name)") {
                try JPEGDecoder.decode(try Fixture.bytes(name), options: DecodeOptions(minimumWidth: 1, minimumHeight: 1))
            }
        }
    }

    @Test(arguments: ["arith.jpg", "arith-progressive.jpg", "arith-small.jpg"])
    func arithmeticCodingLeavesAsHuffmanLosslessly(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Fixture.bytes(name)
        #expect(try JPEGHeader(source).isArithmetic)
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        #expect(item.route == .stripped, "\(name): \(item.error?.description ?? "")")
        let out = try FileBytes.read(try #require(item.output))
        let header = try JPEGHeader(out)
        #expect(!header.isArithmetic)
        // The same pixels: a transcode of the coefficients, not a re-encode.
        #expect(try JPEGDecoder.decode(out).pixels.bytes == JPEGDecoder.decode(source).pixels.bytes)
        #expect(SendCheck().check(path: Fixture.path(name)).reasons.contains("arithmetic coding re-coded as Huffman (most apps cannot decode it)"))
    }

    @Test func aHundredMegapixelOneBitPNGLeavesWithinTheCap() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = "onebit-10000.png"
        #expect(try Fixture.bytes(name).count < ImageProfile.simplex.maxBytes)  // small enough to have gone as it was
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        let (w, h) = (try #require(item.width), try #require(item.height))
        #expect(w * h <= ImageProfile.simplex.maxSentPixels && item.route == .encoded)
        let check = SendCheck().check(path: Fixture.path(name))
        #expect(check.verdict == .afterPreparation)
        #expect(check.reasons.contains("10000×10000 is over the 16,777,216 pixels a recipient's phone is asked to decode: resized"))
    }

    @Test func sixteenBitPNGsAreNotSentAsTheyAre() throws {
        let check = SendCheck().check(path: Fixture.path("rgb16.png"))
        #expect(check.verdict == .afterPreparation && check.reasons.contains("16-bit samples brought to 8 bits"))
    }
}

/// A GIF's cost to a recipient is every frame of a loop: held to a cap as it is, refused past what
/// remaking it would take.
@Suite struct AnimationCostTests {
    static func plan(frames: Int, width: Int, height: Int, bytes: Int = 200_000) -> SendPlan {
        var r = ProbeResult(path: "x.gif", kind: .animatedImage, format: .gif, bytes: bytes)
        (r.width, r.height, r.frameCount, r.animated) = (width, height, frames, true)
        let s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        return SendPlanner.plan(s, SendRules())
    }

    @Test func framesTimesSizeDecideAsWellAsSize() {
        // 100 frames of 480×360 go as they are; 600 frames of 1920×1080 (1.24 G pixels a loop) in 20 MB
        // are remade; in 200 KB they ask for more decoding than a file that small may.
        if case .copy = Self.plan(frames: 100, width: 480, height: 360).action {} else { Issue.record("a small GIF was not sent as it is") }
        #expect(Self.plan(frames: 600, width: 1920, height: 1080).error?.code == .tooManyPixels)
        let big = Self.plan(frames: 600, width: 1920, height: 1080, bytes: 20_000_000)
        if case .encodeAnimation = big.action {} else { Issue.record("\(big.action)") }
        #expect(big.reasons.first?.contains("frame pixels a recipient's phone is asked to decode a loop") == true)
        // 100,000 frames of 1000×1000: refused before a frame is decoded.
        #expect(Self.plan(frames: 100_000, width: 1000, height: 1000).error?.code == .tooManyPixels)
    }
}
