/// The chunks of a RIFF file (WAV: little-endian sizes) or an IFF one (AIFF: big-endian) after the
/// 12-byte header, in order, each padded to an even length: the one walk both strippers make.
enum IFFChunks {
    /// Hands `visit` each chunk's id, offset and length. A chunk the file's end cuts is `truncated`,
    /// except the sound chunk named `samples`, which a recording cut short ends in: its samples are
    /// sent as they are. At most `AudioTagStripper.maxBlocks` chunks.
    static func walk(_ r: ByteReader, bigEndian: Bool, samples: String, _ visit: (String, Int, Int) throws -> Void) throws {
        var at = 12
        for _ in 0..<AudioTagStripper.maxBlocks {
            guard at + 8 <= r.size else { return }
            let c = try r.exactly(at, 8, "a chunk header at offset \(at)")
            let id = Bytes.ascii(c, 0, 4), length = bigEndian ? Bytes.be(c, 4, 4) : Bytes.le(c, 4, 4)
            guard at + 8 + length <= r.size else {
                if id == samples { return }
                throw MediaPrepError(.truncated, "the file is cut off inside its '\(id)' chunk at offset \(at)")
            }
            try visit(id, at, length)
            at += 8 + length + (length & 1)
        }
    }
}
