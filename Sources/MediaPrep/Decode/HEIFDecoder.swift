import CHeif

/// libheif's entry points, opened the first time a HEIC/HEIF/AVIF picture arrives.
enum LibHeif {
    private static let loaded: Result<DynamicTable.Shared<cheif>, MediaPrepError> = Trace.noteTime("loaded libheif") {
        DynamicTable.load(cheif_libraries(), cheif_symbols(), as: cheif.self, failing: .codecUnavailable, "libheif is").map(DynamicTable.Shared.init)
    }

    static func table() throws -> cheif { try loaded.get().table }
}

/// HEIC/HEIF and AVIF through libheif: the primary image, its `irot`/`imir`/`clap` transforms
/// applied (libheif's default); a file without such transforms is turned by its Exif orientation
/// instead (where both exist, the container's are the ones that count, as HEIF says), 8–12-bit
/// sources to 8-bit RGB(A), with the colour the file declares (an ICC profile, or nclx primaries)
/// and whether its Exif carries a GPS position, for `check`.
enum HEIFDecoder {
    /// What the file says of its primary image, read without decoding a pixel: the size as shown
    /// (the container's transforms applied), alpha, colour, metadata and the Exif orientation that
    /// applies when the container has no transforms.
    struct Header: Sendable {
        let width: Int
        let height: Int
        let hasAlpha: Bool
        /// An ICC profile to convert from: the file's own, or one built for its nclx primaries.
        let colour: (profile: [UInt8], name: String?)?
        let metadata: PictureMetadata
        let orientation: ExifOrientation
        /// PQ or HLG: mapped to SDR when decoded (`HDRStill`).
        let hdr: HDRToSDR.Transfer?
    }

    static func header(_ data: [UInt8], format: MediaFormat, maxPixels: Int) throws -> Header {
        try withPrimaryImage(data, format: format, maxPixels: maxPixels) { heif, h, w, ht in
            let (meta, exifOrientation) = metadata(heif, h)
            return Header(width: w, height: ht, hasAlpha: heif.heif_image_handle_has_alpha_channel(h) != 0, colour: colour(heif, h),
                          metadata: meta, orientation: HEIFItems.hasTransforms(data) ? .up : exifOrientation, hdr: hdr(heif, h)?.transfer)
        }
    }

    /// The pixels alone: the colour and metadata are the header's, read once while probing.
    /// - Parameter minimum: the smallest size the caller needs, either way round: an HDR still is halved
    ///   on load while it stays at least that (`HDRStill`); an SDR one comes whole.
    static func decode(_ data: [UInt8], format: MediaFormat, maxPixels: Int, minimum: (width: Int, height: Int)? = nil) throws -> DecodedImage {
        try withPrimaryImage(data, format: format, maxPixels: maxPixels) { heif, h, _, _ in
            let alpha = heif.heif_image_handle_has_alpha_channel(h) != 0
            let orientation = HEIFItems.hasTransforms(data) ? .up : metadata(heif, h).orientation
            if let hdr = hdr(heif, h) {
                return try HDRStill.decode(heif, h, hdr, alpha: alpha, format: format, orientation: orientation,
                                           minimum: minimum)
            }
            var image: OpaquePointer? = nil
            try check(heif.heif_decode_image(h, &image, heif_colorspace_RGB,
                                             alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, nil), .corrupt, format)
            guard let img = image else { throw MediaPrepError(.corrupt, "the \(format.rawValue) image did not decode") }
            defer { heif.heif_image_release(img) }
            var stride: Int32 = 0
            guard let plane = heif.heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride) else {
                throw MediaPrepError(.corrupt, "the \(format.rawValue) image has no pixels")
            }
            // Transforms (a rotation) may have swapped the sides: the decoded image's are the ones shown.
            let (dw, dh) = (Int(heif.heif_image_get_width(img, heif_channel_interleaved)), Int(heif.heif_image_get_height(img, heif_channel_interleaved)))
            let layout: PixelLayout = alpha ? .rgba : .rgb
            let row = dw * layout.channels
            var out = PixelBuffer.storage(row * dh)
            out.withUnsafeMutableBufferPointer { o in
                guard let base = o.baseAddress else { return }
                for y in 0..<dh { (base + y * row).update(from: plane + y * Int(stride), count: row) }
            }
            // An AVIF or HEIC may store colour premultiplied by alpha (avifenc --premultiply), and libheif hands
            // it out so: read as straight, its translucent parts came out dark (14 mean levels on white).
            var pixels = PixelBuffer(width: dw, height: dh, layout: layout, storage: out)
            if alpha, heif.heif_image_handle_is_premultiplied_alpha(h) != 0 { pixels = AlphaOps.unpremultiplied(pixels) }
            return DecodedImage(pixels: pixels, format: format, sourceWidth: dw, sourceHeight: dh, orientation: orientation)
        }
    }

    /// The file read (without copying `data`) and its primary image's handle, both freed on every path.
    /// `body` gets the handle and its size as shown, already held to the pixel limit.
    private static func withPrimaryImage<T>(_ data: [UInt8], format: MediaFormat, maxPixels: Int,
                                            _ body: (cheif, OpaquePointer, Int, Int) throws -> T) throws -> T {
        let items = HEIFItems.of(data)
        for canvas in items?.derivedCanvases(data) ?? []
        where canvas.width.multipliedReportingOverflow(by: canvas.height).overflow || canvas.width * canvas.height > maxPixels {
            throw MediaPrepError(.tooManyPixels, "the \(format.rawValue) file's grid makes \(canvas.width)×\(canvas.height), over the \(maxPixels)-pixel limit")
        }
        // The work the derivation graph asks for, counted before libheif decodes it (a 26 KB grid of
        // overlays named one tile 10 million times and ran for minutes; a loop crashed libheif).
        let work = decodeWork(maxPixels: maxPixels)
        if let cost = try items?.decodeCost(data, limit: work), cost > work {
            throw MediaPrepError(.tooManyPixels, "the \(format.rawValue) file's grid and overlay references ask for over \(work) pixels of decoding (tiles, layers and repeats counted; at least \(HEIFItems.minimumItemCost) a tile), over the limit for a \(maxPixels)-pixel picture")
        }
        if let id = items?.cut.first {
            throw MediaPrepError(.truncated, "the \(format.rawValue) file is cut off: its item \(id)'s data runs past the file's end (\(data.count) bytes)")
        }
        let heif = try LibHeif.table()
        guard let ctx = heif.heif_context_alloc() else { throw MediaPrepError(.decodeFailed, "out of memory") }
        defer { heif.heif_context_free(ctx) }
        return try data.withUnsafeBytes { bytes in
            try check(heif.heif_context_read_from_memory_without_copy(ctx, bytes.baseAddress, bytes.count, nil), .corrupt, format)
            var handle: OpaquePointer? = nil
            try check(heif.heif_context_get_primary_image_handle(ctx, &handle), .corrupt, format)
            guard let h = handle else { throw MediaPrepError(.corrupt, "the \(format.rawValue) file has no primary image") }
            defer { heif.heif_image_handle_release(h) }
            let (w, ht) = (Int(heif.heif_image_handle_get_width(h)), Int(heif.heif_image_handle_get_height(h)))
            guard w > 0, ht > 0 else { throw MediaPrepError(.invalidDimensions, "the \(format.rawValue) image has no size") }
            guard w * ht <= maxPixels else { throw MediaPrepError(.tooManyPixels, "\(w)×\(ht) is over the \(maxPixels)-pixel limit") }
            return try body(heif, h, w, ht)
        }
    }

    /// Pixels of decoding a still may ask for: its tiles and layers and the canvas they make, four
    /// times the pixel limit (a 12 MP iPhone grid asks 25 M, a 100 MP grid of 512-px tiles 200 M;
    /// libheif composed an overlay of 65,535 layers of one 64-px tile, 268 M, in 8 s).
    static func decodeWork(maxPixels: Int) -> Int { maxPixels.multipliedReportingOverflow(by: 4).overflow ? Int.max / 2 : 4 * maxPixels }

    private static func check(_ e: heif_error, _ code: MediaPrepError.Code, _ format: MediaFormat) throws {
        guard e.code != heif_error_Ok else { return }
        let text = e.message.map { String(cString: $0) } ?? "error \(e.code.rawValue)"
        let truncated = e.code == heif_error_Invalid_input && text.lowercased().contains("end of")
        throw MediaPrepError(truncated ? .truncated : code, "the \(format.rawValue) file cannot be read: \(text)")
    }

    /// The file's ICC profile, else a profile for its nclx primaries (Display P3, BT.2020; SDR only).
    private static func colour(_ heif: cheif, _ h: OpaquePointer) -> (profile: [UInt8], name: String?)? {
        let size = heif.heif_image_handle_get_raw_color_profile_size(h)
        if size > 0 {
            var icc = [UInt8](repeating: 0, count: size)
            if heif.heif_image_handle_get_raw_color_profile(h, &icc).code == heif_error_Ok { return (icc, nil) }
        }
        return nclx(heif, h).flatMap { SynthesizedProfile.forCodePoints(primaries: $0.primaries, transfer: $0.transfer) }.map { ($0.profile, $0.name) }
    }

    /// The nclx colour box's primaries and transfer (H.273 code points), or nil when the file has none.
    private static func nclx(_ heif: cheif, _ h: OpaquePointer) -> (primaries: Int, transfer: Int)? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>? = nil
        let read = heif.heif_image_handle_get_nclx_color_profile(h, &nclx)
        defer { if let n = nclx { heif.heif_nclx_color_profile_free(n) } }  // freed whatever the call said
        guard read.code == heif_error_Ok, let n = nclx else { return nil }
        return (Int(n.pointee.color_primaries.rawValue), Int(n.pointee.transfer_characteristics.rawValue))
    }

    /// An HDR picture's transfer (nclx PQ or HLG) and primaries, or nil for SDR.
    static func hdr(_ heif: cheif, _ h: OpaquePointer) -> (transfer: HDRToSDR.Transfer, primaries: Int)? {
        guard let n = nclx(heif, h) else { return nil }
        switch n.transfer {
        case 16: return (.pq, n.primaries)
        case 18: return (.hlg, n.primaries)
        default: return nil
        }
    }

    /// What metadata the file carries (Exif, GPS inside it, XMP), for `check` (none of it is kept),
    /// and the Exif orientation.
    private static func metadata(_ heif: cheif, _ h: OpaquePointer) -> (metadata: PictureMetadata, orientation: ExifOrientation) {
        var m = PictureMetadata(blocks: "metadata items")
        var orientation = ExifOrientation.up
        let n = Int(heif.heif_image_handle_get_number_of_metadata_blocks(h, nil))
        guard n > 0 else { return (m, orientation) }
        var ids = [heif_item_id](repeating: 0, count: n)
        let got = Int(heif.heif_image_handle_get_list_of_metadata_block_IDs(h, nil, &ids, Int32(n)))
        for id in ids.prefix(got) {
            let type = heif.heif_image_handle_get_metadata_type(h, id).map { String(cString: $0) } ?? ""
            if type == "Exif" {
                m.exif = true
                var block = [UInt8](repeating: 0, count: heif.heif_image_handle_get_metadata_size(h, id))
                // The Exif item starts with a 4-byte offset to the TIFF header.
                if block.count > 8, heif.heif_image_handle_get_metadata(h, id, &block).code == heif_error_Ok {
                    let offset = 4 + (Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3]))
                    if offset < block.count {
                        if PictureMetadata.hasGPS(block[offset...]) { m.gps = true }
                        orientation = ExifOrientation.fromTIFF(block[offset...])
                    }
                }
            } else if type == "mime" {
                m.xmp = true
            } else {
                m.other = true
            }
        }
        return (m, orientation)
    }
}
