import Glibc
import UploadPlanner

/// A JPEG of a PDF made clean where qpdf wrote it: each metadata segment turned into a comment of
/// zeros and what follows its end zeroed, every length kept, so no offset in the PDF moves and qpdf
/// never holds the picture (its C API takes new stream data only as a buffer it keeps until written:
/// a 100 MB PDF of photos peaked at 132 MB that way, against 29 MB for a small one).
struct PDFPicturePatch {
    /// The JPEG's first bytes through its last metadata segment: what finds it in the written file.
    let head: [UInt8]
    /// Bytes to write, relative to the JPEG's start.
    let edits: [(at: Int, bytes: [UInt8])]
    /// Bytes after the image's end that go (a motion photo's video, a second image), zeroed where the
    /// written file has them, checked first by a hash of them as they were.
    let tail: (range: Range<Int>, hash: UInt64)?

    /// The patch that makes `jpeg` what `rewrite` keeps of it; nil when it changes nothing patchable.
    init?(_ jpeg: [UInt8], _ rewrite: MetadataRewrite) {
        let kept = rewrite.pieces.compactMap { piece -> Range<Int>? in if case .source(let r) = piece { return r } else { return nil } }
        func isKept(_ r: Range<Int>) -> Bool { kept.contains { $0.lowerBound <= r.lowerBound && r.upperBound <= $0.upperBound } }
        var edits: [(at: Int, bytes: [UInt8])] = []
        var headEnd = 0
        for s in JPEGMarkers(jpeg).segments where s.marker != 0xDA {
            let whole = (s.payload.lowerBound - 4)..<s.payload.upperBound
            guard !isKept(whole) else { continue }
            edits.append((whole.lowerBound + 1, [0xFE]))  // the marker becomes COM, its length kept
            edits.append((s.payload.lowerBound, [UInt8](repeating: 0, count: s.payload.count)))
            headEnd = whole.upperBound
        }
        let keptEnd = kept.map(\.upperBound).max() ?? jpeg.count
        tail = keptEnd < jpeg.count && !isKept(keptEnd..<jpeg.count) ? (keptEnd..<jpeg.count, Bytes.fnv1a(jpeg[keptEnd...])) : nil
        guard !edits.isEmpty || tail != nil else { return nil }
        (self.edits, head) = (edits, Array(jpeg.prefix(max(headEnd, 32))))
    }

    /// Finds each picture in the file at `path` (a JPEG's start, then its head byte for byte) and
    /// patches it there; one not found is an error, never a PDF sent with it.
    static func apply(_ patches: [PDFPicturePatch], to path: String) throws {
        guard !patches.isEmpty else { return }
        let fd = FileNameBytes.withCString(path) { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw MediaPrepError(.writeFailed, "cannot reopen \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var byKey: [[UInt8]: [Int]] = [:]
        for (i, p) in patches.enumerated() { byKey[Array(p.head.prefix(32)), default: []].append(i) }
        var done = [Bool](repeating: false, count: patches.count)
        let chunk = 4 << 20, overlap = 32
        var buffer = [UInt8](repeating: 0, count: chunk + overlap)
        var offset = 0
        while true {
            let n = try read(fd, &buffer, at: offset)
            guard n >= 3 else { break }
            var i = 0
            while i + 3 <= n {
                // The next FF (memchr), then D8 FF after it: a JPEG's start.
                guard let hit = buffer.withUnsafeBytes({ b -> Int? in
                    guard let base = b.baseAddress, let p = memchr(base + i, 0xFF, n - i) else { return nil }
                    return base.distance(to: UnsafeRawPointer(p))
                }) else { break }
                guard hit + 3 <= n, buffer[hit + 1] == 0xD8, buffer[hit + 2] == 0xFF else { i = hit + 1; continue }
                if hit + 32 <= n, let candidates = byKey[Array(buffer[hit..<(hit + 32)])] {
                    for c in candidates { if try patch(patches[c], fd, at: offset + hit) { done[c] = true } }
                }
                i = hit + 1
            }
            if n < buffer.count { break }
            offset += chunk
        }
        guard done.allSatisfy({ $0 }) else {
            throw MediaPrepError(.corrupt, "a picture of the PDF was not where qpdf wrote it; the PDF is not sent with its metadata")
        }
    }

    /// Patches the picture at `at` if its head is there (false when it is not this picture).
    private static func patch(_ p: PDFPicturePatch, _ fd: Int32, at: Int) throws -> Bool {
        var head = [UInt8](repeating: 0, count: p.head.count)
        guard try read(fd, &head, at: at) == head.count, head == p.head else { return false }
        if let tail = p.tail {
            var bytes = [UInt8](repeating: 0, count: tail.range.count)
            guard try read(fd, &bytes, at: at + tail.range.lowerBound) == bytes.count, Bytes.fnv1a(bytes) == tail.hash else { return false }
            try write(fd, [UInt8](repeating: 0, count: tail.range.count), at: at + tail.range.lowerBound)
        }
        for e in p.edits { try write(fd, e.bytes, at: at + e.at) }
        return true
    }

    private static func read(_ fd: Int32, _ buffer: inout [UInt8], at: Int) throws -> Int {
        var got = 0
        while got < buffer.count {
            let n = buffer.withUnsafeMutableBytes { b in b.baseAddress.map { pread(fd, $0 + got, b.count - got, off_t(at + got)) } ?? 0 }
            if n < 0 { throw MediaPrepError(.writeFailed, "cannot read back the PDF: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            got += n
        }
        return got
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8], at: Int) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { b in b.baseAddress.map { pwrite(fd, $0 + done, b.count - done, off_t(at + done)) } ?? 0 }
            guard n > 0 else { throw MediaPrepError(.writeFailed, "cannot write the PDF: \(String(cString: strerror(errno)))") }
            done += n
        }
    }
}
