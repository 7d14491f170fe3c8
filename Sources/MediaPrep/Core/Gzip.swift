import CPng

/// gzip streams through zlib (libpng's own): an SVGZ is told by the start of what it inflates to, and
/// cleaned as the SVG inside it, compressed again without the original's name and time.
enum Gzip {
    static func isGzip<C: Collection>(_ data: C) -> Bool where C.Element == UInt8 {
        data.starts(with: [0x1F, 0x8B, 0x08])
    }

    /// Up to `limit` bytes of what `data` (a gzip stream's start, or all of it) inflates to: as much
    /// as the bytes given hold, with no error for a stream they cut.
    static func inflatePrefix(_ data: [UInt8], limit: Int) -> [UInt8] {
        (try? inflate(data, limit: limit, whole: false)) ?? []
    }

    /// What `data` inflates to, every member of it; over `limit` bytes is `tooLarge`, damage `corrupt`,
    /// a stream the file's end cuts `truncated`.
    static func inflate(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        try inflate(data, limit: limit, whole: true)
    }

    /// What one zlib stream (a PDF's FlateDecode) inflates to, with the same bounds and errors.
    static func inflateZlib(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        try inflate(data, limit: limit, whole: true, zlib: true)
    }

    private static func inflate(_ data: [UInt8], limit: Int, whole: Bool, zlib: Bool = false) throws -> [UInt8] {
        let what = zlib ? "the zlib stream" : "the gzip stream"
        var out: [UInt8] = []
        var consumed = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while consumed < data.count {
            // Zeros after a member are padding some writers leave, no second member.
            guard zlib || isGzip(data[consumed...]) else {
                guard data[consumed...].allSatisfy({ $0 == 0 }) else {
                    throw MediaPrepError(.corrupt, "the gzip stream is followed by \(data.count - consumed) bytes that are no gzip member")
                }
                break
            }
            var z = z_stream()
            guard (zlib ? cpng_zlib_inflate_init(&z) : cpng_gzip_inflate_init(&z)) == Z_OK else { throw MediaPrepError(.outOfMemory, "zlib could not start inflating") }
            defer { _ = PNGLibrary.zlib.inflateEnd(&z) }
            var rc: Int32 = Z_OK
            try data.withUnsafeBufferPointer { input in
                z.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + consumed })
                z.avail_in = UInt32(min(input.count - consumed, Int(UInt32.max)))
                repeat {
                    let room = min(chunk.count, limit - out.count + 1)
                    guard room > 0 else { break }
                    let produced = chunk.withUnsafeMutableBufferPointer { o -> Int in
                        z.next_out = o.baseAddress
                        z.avail_out = UInt32(room)
                        rc = zlib_inflate(&z)
                        return room - Int(z.avail_out)
                    }
                    out += chunk[0..<produced]
                    guard out.count <= limit else {
                        if !whole { out.removeLast(out.count - limit); return }
                        throw MediaPrepError(.tooLarge, "\(what) inflates to over \(limit) bytes")
                    }
                    if rc == Z_BUF_ERROR && z.avail_in == 0 { break }
                } while rc == Z_OK
            }
            if !whole { return out }
            switch rc {
            case Z_STREAM_END: consumed = zlib ? data.count : data.count - Int(z.avail_in)  // one zlib stream; what follows is the PDF's padding
            case Z_BUF_ERROR, Z_OK: throw MediaPrepError(.truncated, "\(what) is cut off after \(out.count) inflated bytes")
            default: throw MediaPrepError(.corrupt, "\(what) is damaged (zlib: \(z.msg.map { String(cString: $0) } ?? "error \(rc)"))")
            }
        }
        return out
    }

    /// `data` as one gzip member at zlib's `level` (its best by default): no name, no time, zlib's OS code.
    static func compress(_ data: [UInt8], level: Int32 = 9) throws -> [UInt8] {
        var z = z_stream()
        guard cpng_gzip_deflate_init(&z, level) == Z_OK else { throw MediaPrepError(.outOfMemory, "zlib could not start compressing") }
        defer { _ = PNGLibrary.zlib.deflateEnd(&z) }
        let bound = Int(PNGLibrary.zlib.deflateBound(&z, UInt(data.count)))
        var out = [UInt8](repeating: 0, count: bound)
        var rc: Int32 = Z_OK
        data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { o in
                z.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                z.avail_in = UInt32(input.count)
                z.next_out = o.baseAddress
                z.avail_out = UInt32(o.count)
                rc = PNGLibrary.zlib.deflate(&z, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw MediaPrepError(.encodeFailed, "zlib could not compress (error \(rc))") }
        out.removeLast(out.count - Int(z.total_out))
        return out
    }
}

/// zlib's `inflate`, whose name Swift would take for the enum's.
private func zlib_inflate(_ z: UnsafeMutablePointer<z_stream>) -> Int32 { PNGLibrary.zlib.inflate(z, Z_NO_FLUSH) }
