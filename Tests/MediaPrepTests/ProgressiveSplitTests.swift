import Testing
import CJpeg
@testable import MediaPrep

/// A progressive JPEG decoded on two threads (luma scans on one, chroma on the other) gives the
/// pixels of the usual decode, and whatever is wrong with a file is reported as the usual decode does.
@Suite struct ProgressiveSplitTests {
    static let photo: [UInt8]? = try? JPEGEncoder().encode(try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels,
                                                            quality: 90, progressive: true)

    /// Pixels, or the error's code. Compared as a whole: a mismatch prints a case, not megabytes.
    enum Outcome: Equatable, CustomStringConvertible {
        case pixels([UInt8])
        case failed(MediaPrepError.Code?)
        var description: String {
            switch self {
            case .pixels(let p): return "\(p.count) bytes of pixels"
            case .failed(let c): return "failed: \(c.map { "\($0)" } ?? "not a MediaPrepError")"
            }
        }
    }

    static func decode(_ data: [UInt8], threads: Int, half: Bool = false) -> Outcome {
        var options = DecodeOptions()
        if half, let h = try? JPEGHeader(data) { (options.minimumWidth, options.minimumHeight) = (h.width / 2, h.height / 2) }
        options.threads = threads
        do { return .pixels(try JPEGDecoder.decode(data, options: options).pixels.bytes) } catch {
            return .failed((error as? MediaPrepError)?.code)
        }
    }

    /// Whether the reader really split this file.
    static func splits(_ data: [UInt8]) throws -> Bool {
        let src = try JPEGSource(data)
        guard let split = ProgressiveSplit(data, markers: src.markers) else { return false }
        return try JPEGRowReader.with(data, scale: 1, space: cjpeg_space_rgb(), maxMemory: 1 << 30, split: split) { $0.isSplit }
    }

    @Test func twoThreadsDecodeTheSamePixels() throws {
        let photo = try #require(Self.photo)
        for data in [try Fixture.bytes("progressive.jpg"), photo] {
            #expect(try Self.splits(data))
            for half in [false, true] {
                let one = Self.decode(data, threads: 1, half: half), two = Self.decode(data, threads: 2, half: half)
                guard case .pixels = one else { Issue.record("\(one)"); continue }
                let same = one == two  // a Bool: pixels would print megabytes
                #expect(same, "half scale \(half): \(two)")
            }
        }
    }

    @Test func onlyCompleteProgressiveFilesAreSplit() throws {
        let photo = try #require(Self.photo)
        #expect(try !Self.splits(try Fixture.bytes("photo.jpg")))  // baseline
        #expect(try !Self.splits(try Fixture.bytes("arith-progressive.jpg")))  // arithmetic coding: another frame type
        // The last scan (luma, refining every AC coefficient's last bit) taken out, EOI kept: the
        // luma is not complete, so the usual decode runs (it would smooth the missing bits).
        let src = try JPEGSource(photo)
        let lastScan = try #require(Self.scanStarts(photo, from: src).last)
        let incomplete = Array(photo[..<lastScan]) + [0xFF, 0xD9]
        #expect(try !Self.splits(incomplete))
        let same = Self.decode(incomplete, threads: 1) == Self.decode(incomplete, threads: 2)
        #expect(same)
    }

    @Test func damageIsReportedAsWithOneThread() throws {
        let photo = try #require(Self.photo)
        let scans = try Self.scanStarts(photo, from: try JPEGSource(photo))
        #expect(scans.count >= 8)
        var cases: [[UInt8]] = [Array(photo.prefix(photo.count * 6 / 10)), Array(photo.prefix(photo.count - 40))]
        // Inside each scan in turn (luma and chroma ones alike): a stray restart marker; entropy-coded
        // bytes changed (no marker made), many or one.
        for start in scans {
            var marker = photo, garbled = photo, flipped = photo
            marker[start + 60] = 0xFF
            marker[start + 61] = 0xD3
            func flip(_ d: inout [UInt8], _ k: Int) {
                let v = d[k] ^ 0x5A
                if d[k - 1] != 0xFF, d[k] != 0xFF, v != 0xFF { d[k] = v }
            }
            for k in stride(from: start + 40, to: min(start + 400, photo.count - 2), by: 7) { flip(&garbled, k) }
            flip(&flipped, min(start + 90, photo.count - 3))
            cases += [marker, garbled, flipped]
        }
        for (n, data) in cases.enumerated() {
            let one = Self.decode(data, threads: 1), two = Self.decode(data, threads: 2)
            let same = one == two
            #expect(same, "case \(n): one thread \(one), two \(two)")
        }
    }

    /// Where each scan header starts (after the first, found by walking the entropy-coded data).
    static func scanStarts(_ data: [UInt8], from src: JPEGSource) throws -> [Int] {
        var i = try #require(src.markers.segments.last).payload.lowerBound - 4
        var starts: [Int] = []
        while i + 4 <= data.count, data[i] == 0xFF, data[i + 1] != 0xD9 {
            let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            if data[i + 1] == 0xDA {
                starts.append(i)
                i = ProgressiveSplit.endOfScan(data, from: i + 2 + length)
            } else {
                i += 2 + length
            }
        }
        return starts
    }
}
