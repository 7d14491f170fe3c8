import Glibc
import UploadPlanner

/// A file's metadata taken out without touching its streams: the output is the input's byte ranges
/// with some replaced (a tag cut, a box blanked, a comment packet emptied). Written by copying ranges
/// (`copy_file_range`, so the kernel moves the bytes and memory does not grow with the file).
package struct MetadataRewrite: Sendable, Equatable {
    package typealias Piece = FilePiece

    /// A document written whole again by its library rather than by copying ranges (a PDF by qpdf, a
    /// ZIP package by libzip): `pieces` is then empty and the output's size known once written.
    package enum Rebuild: Sendable, Equatable { case pdf, zipPackage }

    package var pieces: [Piece]
    package var found: PrivateFields
    package var rebuild: Rebuild? = nil
    /// Pictures, media and documents inside this one that were cleaned as their own kind.
    package var cleanedParts = 0
    /// The size the input had when it was planned; a file that changed since is not written.
    package var sourceSize: Int

    package var outputSize: Int { pieces.reduce(0) { $0 + $1.count } }

    /// "author, company, dates removed; 2 embedded pictures cleaned"
    package var summary: String {
        found.removal + (cleanedParts == 0 ? "" : "; \(cleanedParts) embedded \(cleanedParts == 1 ? "part" : "parts") cleaned")
    }

    /// The pieces of this rewrite of a file embedded at `offset` in another (a smart object's, a
    /// motion photo's video), as pieces of that other file.
    func pieces(at offset: Int) -> [Piece] {
        pieces.map { if case .source(let r) = $0 { return .source((r.lowerBound + offset)..<(r.upperBound + offset)) } else { return $0 } }
    }

    /// The bytes this rewrite writes for `input` held in memory (a picture embedded in a document).
    package func applied(to input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(outputSize)
        for piece in pieces {
            switch piece {
            case .source(let r): out += input[r]
            case .bytes(let b): out += b
            case .zeros(let n): out += [UInt8](repeating: 0, count: n)
            }
        }
        return out
    }

    /// The input with `edits` applied: each range (sorted, not overlapping) replaced by its pieces.
    init(sourceSize: Int, edits: [(Range<Int>, [Piece])], found: PrivateFields) {
        var pieces: [Piece] = []
        var at = 0
        for (range, replacement) in edits.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) where range.lowerBound >= at {
            if range.lowerBound > at { pieces.append(.source(at..<range.lowerBound)) }
            pieces += replacement
            at = range.upperBound
        }
        if at < sourceSize { pieces.append(.source(at..<sourceSize)) }
        (self.pieces, self.found, self.sourceSize) = (pieces, found, sourceSize)
    }

    /// This rewrite of a file's first `sourceSize` bytes applied to the whole file of `size` bytes:
    /// what follows them (a tag or junk after the stream or the last box) is cut.
    func cuttingAfter(fileSize size: Int) -> MetadataRewrite {
        var whole = self
        whole.sourceSize = size
        return whole
    }

    /// Writes the rewritten file at `destination` (created, never replaced).
    package func write(from source: String, to destination: String) throws {
        switch rebuild {
        case .pdf?: try PDFCleaner.write(from: source, to: destination)
        case .zipPackage?: try ZipPackageCleaner.write(from: source, to: destination)
        case nil: try FileCopier.write(pieces, from: source, expectedSize: sourceSize, to: destination)
        }
    }
}
