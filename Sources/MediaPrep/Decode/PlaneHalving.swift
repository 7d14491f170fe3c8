import CJpeg

extension JPEGDecoder {
    /// A colour JPEG shrunk on load from its own planes (`lanczosShrink`): Y, read whole, is halved by
    /// Lanczos as its rows come; Cb and Cr, which 4:2:0 already holds at that size, are taken as
    /// they are (scaled only when their sampling differs); then libjpeg's own colour conversion
    /// makes RGB at the half size (TurboJPEG's YUV decode), a band at a time as the rows come. A
    /// third of the scaling work of halving the RGB decode, and no full-size upsampling or colour
    /// conversion: a 12 MP photo's decode 78 → 66 ms (the scaled IDCT it replaces: 46 ms). Luma is
    /// what halving the RGB would give, up to rounding (mean 0.09 level on photo.jpg); the chroma is
    /// the file's own.
    /// - Parameters:
    ///   - view: a size to scale the halved RGB to beside the decode, as its rows are converted (the
    ///     same pixels as scaling the halved image afterwards).
    ///   - candidates: hill-climb sizes whose planes are made beside it too (`PlanesBeside`).
    static func halvedFromPlanes(_ reader: JPEGRowReader, to size: (width: Int, height: Int), view: (width: Int, height: Int)? = nil,
                                 candidates: [ClimbSize] = [], threads: Int) throws -> (PixelBuffer, PackingSliceResizer?, [PlanesBeside]) {
        // Allocated here, where the pixels are used next (a buffer a worker allocates comes from its
        // own malloc arena, which the search cannot reuse: garden-noisy-5640 peaked 10 MiB higher);
        // swscale's contexts are built on the scaling thread while the first band decodes (its Lanczos
        // filters, for the halving, the view and two candidates: 12 ms off the decoder's path).
        let s = try HalvingStages(reader, to: size, view: view, candidates: candidates)
        try RowPipeline.run(reader, threads: threads) { rows, count in try s.feed(rows, count: count) }
        guard s.rgb.rowsDone == size.height else {
            throw MediaPrepError(.resizeFailed, "only \(s.rgb.rowsDone) of \(size.height) rows were converted")
        }
        return (PixelBuffer(width: size.width, height: size.height, layout: .rgb, storage: s.rgb.out), s.scaler, s.beside)
    }
}

/// What `halvedFromPlanes` runs on each band, on the scaling thread.
private final class HalvingStages {
    let planes: [JPEGRowReader.Plane]
    let offsets: [Int]
    let luma: PackingSliceResizer
    let chroma: [ChromaPlane]
    let rgb: BandColour
    let scaler: PackingSliceResizer?
    let beside: [PlanesBeside]

    init(_ reader: JPEGRowReader, to size: (width: Int, height: Int), view: (width: Int, height: Int)?, candidates: [ClimbSize]) throws {
        planes = reader.planes
        offsets = planes.indices.map { reader.planeOffset($0) }
        let (w, h) = size
        luma = try PackingSliceResizer(width: planes[0].width, height: planes[0].height, layout: .gray,
                                       toWidth: w, height: h, band: RowPipeline.band)
        chroma = try planes.dropFirst().map { try ChromaPlane($0, to: size) }
        rgb = try BandColour(width: w, height: h)
        scaler = try view.map { try PackingSliceResizer(width: w, height: h, layout: .rgb, toWidth: $0.width, height: $0.height, band: RowPipeline.band) }
        beside = try candidates.map { try PlanesBeside(source: w, h, to: ($0.width, $0.height), long: $0.long, band: RowPipeline.band) }
    }

    func feed(_ rows: UnsafePointer<UInt8>, count: Int) throws {
        let perBand = RowPipeline.band / planes[0].rows  // iMCU rows a band holds
        for (c, plane) in chroma.enumerated() {
            try plane.take(rows + offsets[c + 1], upTo: perBand * planes[c + 1].rows)
        }
        try luma.feed(rows, count: count, stride: planes[0].padded)
        // RGB as soon as a row has all three planes: converted, and scaled, beside the decode.
        let ready = min(luma.rowsOut, chroma[0].rowsReady, chroma[1].rowsReady)
        let w = rgb.width
        try luma.withRows { y in try chroma[0].withRows { cb in try chroma[1].withRows { cr in
            try rgb.convert(upTo: ready, y: y, cb: cb, cr: cr) { image, from, count in
                try scaler?.feed(image + from * w * 3, count: count)
                for c in beside { try c.feed(image, from: from, count: count) }
            }
        } } }
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

    /// Rows of the half-size plane made so far.
    var rowsReady: Int { scaler?.rowsOut ?? fed }

    /// The half-size plane's rows made so far (`rowsReady`), `size.width` bytes apart.
    func withRows<R>(_ body: (UnsafePointer<UInt8>) throws -> R) throws -> R {
        if let scaler { return try scaler.withRows(body) }
        return try kept.withUnsafeBufferPointer { k in
            guard let kb = k.baseAddress else { throw MediaPrepError(.resizeFailed, "no chroma rows came") }
            return try body(kb)
        }
    }
}

/// Half-size Y, Cb and Cr rows to RGB a band at a time, through TurboJPEG (libjpeg's decoder's colour
/// conversion: 4:4:4, so each row on its own, the same bytes as converting the whole image at once).
private final class BandColour {
    let width: Int, height: Int
    private let handle: TurboJPEGHandle
    private(set) var out: [UInt8]
    private(set) var rowsDone = 0

    init(width: Int, height: Int) throws {
        (self.width, self.height) = (width, height)
        handle = try TurboJPEGHandle(.decompress)
        out = PixelBuffer.storage(width * height * 3)
    }

    /// Converts rows up to `rows` (each plane `width` bytes a row), then hands them to `then`: the
    /// image's first row, the first new row, their count.
    func convert(upTo rows: Int, y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                 then: (UnsafePointer<UInt8>, Int, Int) throws -> Void) throws {
        let (w, from) = (width, rowsDone)
        let n = min(rows, height) - from
        guard n > 0 else { return }
        let strides = [Int32](repeating: Int32(w), count: 3)
        var sources: [UnsafePointer<UInt8>?] = [y + from * w, cb + from * w, cr + from * w]
        let rc = out.withUnsafeMutableBufferPointer { o in
            sources.withUnsafeMutableBufferPointer { s in strides.withUnsafeBufferPointer { st in
                JPEGLibrary.turbo.tjDecodeYUVPlanes(handle.raw, s.baseAddress, st.baseAddress, Int32(TJSAMP_444.rawValue), o.baseAddress.map { $0 + from * w * 3 },
                                  Int32(w), Int32(w * 3), Int32(n), Int32(TJPF_RGB.rawValue), 0)
            } }
        }
        guard rc == 0 else { throw MediaPrepError(.decodeFailed, "TurboJPEG could not convert the planes: \(handle.lastError)") }
        rowsDone += n
        try out.withUnsafeBufferPointer { o in
            guard let ob = o.baseAddress else { return }
            try then(ob, from, n)
        }
    }
}
