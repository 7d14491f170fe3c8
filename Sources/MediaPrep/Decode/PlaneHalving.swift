import CJpeg

extension JPEGDecoder {
    /// A colour JPEG shrunk on load from its own planes (`lanczosShrink`): Y, read whole, is halved by
    /// Lanczos as its rows come; Cb and Cr, which 4:2:0 already holds at that size, are taken as
    /// they are (scaled only when their sampling differs); then libjpeg's own colour conversion
    /// makes RGB at the half size (TurboJPEG's YUV decode). A third of the scaling work of halving
    /// the RGB decode, and no full-size upsampling or colour conversion: a 12 MP photo's decode
    /// 78 → 66 ms (the scaled IDCT it replaces: 46 ms). Luma is what halving the RGB would give, up
    /// to rounding (mean 0.09 level on photo.jpg); the chroma is the file's own.
    static func halvedFromPlanes(_ reader: JPEGRowReader, to size: (width: Int, height: Int), threads: Int) throws -> PixelBuffer {
        let planes = reader.planes
        let (w, h) = size
        let band = RowPipeline.band
        let luma = try PackingSliceResizer(width: planes[0].width, height: planes[0].height, layout: .gray,
                                           toWidth: w, height: h, band: band)
        let chroma = try planes.dropFirst().map { try ChromaPlane($0, to: size) }
        let perBand = band / planes[0].rows  // iMCU rows a band holds
        try RowPipeline.run(reader, threads: threads) { rows, count in
            try luma.feed(rows, count: count, stride: planes[0].padded)
            for (c, plane) in chroma.enumerated() {
                try plane.take(rows + reader.planeOffset(c + 1), upTo: perBand * planes[c + 1].rows)
            }
        }
        let y = try luma.pixels()
        let (cb, cr) = (try chroma[0].pixels(), try chroma[1].pixels())
        return try rgb(y: y.bytes, cb: cb, cr: cr, width: w, height: h)
    }

    /// Y, Cb and Cr planes of one size (`width` bytes a row) to RGB through TurboJPEG, which runs
    /// libjpeg's decoder's colour conversion.
    static func rgb(y: [UInt8], cb: [UInt8], cr: [UInt8], width: Int, height: Int) throws -> PixelBuffer {
        let handle = try TurboJPEGHandle(.decompress)
        var out = PixelBuffer.storage(width * height * 3)
        let strides = [Int32](repeating: Int32(width), count: 3)
        let rc = y.withUnsafeBufferPointer { yp in cb.withUnsafeBufferPointer { bp in cr.withUnsafeBufferPointer { rp in
            out.withUnsafeMutableBufferPointer { o in
                var sources: [UnsafePointer<UInt8>?] = [yp.baseAddress, bp.baseAddress, rp.baseAddress]
                return sources.withUnsafeMutableBufferPointer { s in
                    strides.withUnsafeBufferPointer { st in
                        tjDecodeYUVPlanes(handle.raw, s.baseAddress, st.baseAddress, Int32(TJSAMP_444.rawValue), o.baseAddress,
                                          Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue), 0)
                    }
                }
            }
        } } }
        guard rc == 0 else { throw MediaPrepError(.decodeFailed, "TurboJPEG could not convert the planes: \(handle.lastError)") }
        return PixelBuffer(width: width, height: height, layout: .rgb, storage: out)
    }
}

/// One chroma plane on its way to the half size: copied row by row when the file holds it at that
/// size (4:2:0), else scaled there as its rows come. Fed on the scaling thread only.
private final class ChromaPlane {
    let plane: JPEGRowReader.Plane
    let size: (width: Int, height: Int)
    private let scaler: PackingSliceResizer?
    private var kept: [UInt8]
    private var fed = 0

    init(_ plane: JPEGRowReader.Plane, to size: (width: Int, height: Int)) throws {
        (self.plane, self.size) = (plane, size)
        let same = (plane.width, plane.height) == size
        scaler = same ? nil : try PackingSliceResizer(width: plane.width, height: plane.height, layout: .gray,
                                                      toWidth: size.width, height: size.height, band: RowPipeline.band)
        kept = same ? PixelBuffer.storage(size.width * size.height) : []
    }

    /// This band's rows of the plane (`share` of them, fewer at the bottom), `padded` bytes apart.
    func take(_ rows: UnsafePointer<UInt8>, upTo share: Int) throws {
        let n = min(share, plane.height - fed)
        guard n > 0 else { return }
        if let scaler {
            try scaler.feed(rows, count: n, stride: plane.padded)
        } else {
            let (w, at, padded) = (size.width, fed, plane.padded)
            kept.withUnsafeMutableBufferPointer { k in
                guard let kb = k.baseAddress else { return }
                for r in 0..<n { (kb + (at + r) * w).update(from: rows + r * padded, count: w) }
            }
        }
        fed += n
    }

    func pixels() throws -> [UInt8] {
        if let scaler { return try scaler.pixels().bytes }
        guard fed == plane.height else { throw MediaPrepError(.resizeFailed, "only \(fed) of \(plane.height) chroma rows came") }
        return kept
    }
}
