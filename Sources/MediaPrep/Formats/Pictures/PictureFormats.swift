/// Still and animated pictures: told by their magic, each declaring its decoder and the rewrite of
/// its metadata (`MetadataRewrite.picture` dispatches on it).
enum PictureFormats {
    static let jpeg = FormatEntry(formats: [.jpeg]) { $0.starts([0xFF, 0xD8, 0xFF]) ? .jpeg : nil }
        .picture(.jpeg, decoder: .jpeg, rewrite: MetadataRewrite.jpegOrPNG)
    static let png = FormatEntry(formats: [.png]) { $0.starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) ? .png : nil }
        .picture(.png, decoder: .png, rewrite: MetadataRewrite.jpegOrPNG)
    static let gif = FormatEntry(formats: [.gif]) { $0.at(0, "GIF87a") || $0.at(0, "GIF89a") ? .gif : nil }
        .picture(.gif, decoder: .ffmpeg) { data, _, _ in MetadataRewrite.gif(data) }
    /// "BM" starts plenty of text ("BMW is…", a .txt refused as a damaged bitmap): the DIB header's
    /// size must be one of the seven that exist, and its plane count 1.
    static let bmp = FormatEntry(formats: [.bmp]) { h in
        h.at(0, "BM") && h.b.count >= 30 && [12, 40, 52, 56, 64, 108, 124].contains(h.le(14, 4)) && h.le(h.le(14, 4) == 12 ? 22 : 26, 2) == 1 ? .bmp : nil
    }.picture(.bmp, decoder: .ffmpeg)
    /// Camera raws with a magic of their own: Canon CR2 (a TIFF with "CR", version 2), Olympus ORF,
    /// Panasonic RW2, Fujifilm RAF, Phase One IIQ (a TIFF with "IIII" after its header), Canon CRW
    /// (a CIFF heap), Minolta MRW, Sigma X3F. (CR3 is an ISO file of brand `crx `.) The last four
    /// were unknown files, sent as they were with the camera's model and serial number (exiftool's
    /// own samples of each).
    static let cameraRaw = FormatEntry(formats: [.cameraRaw]) { h in
        let b = h.b
        if h.starts([0x49, 0x49, 0x2A, 0x00]) && h.at(8, "CR") && b.count > 10 && b[10] == 2 { return .cameraRaw }
        if h.starts([0x49, 0x49, 0x2A, 0x00]) && h.at(8, "IIII") { return .cameraRaw }
        if h.at(0, "IIRO") || h.at(0, "IIRS") || h.at(0, "MMOR") || h.starts([0x49, 0x49, 0x55, 0x00]) || h.at(0, "FUJIFILMCCD-RAW ") { return .cameraRaw }
        if (h.starts([0x49, 0x49, 0x1A, 0x00]) || h.starts([0x4D, 0x4D, 0x00, 0x1A])) && h.at(6, "HEAPCCDR") { return .cameraRaw }
        // X3F's "FOVb" is text too ("FOVbased…"): its version follows, two small 16-bit numbers.
        if h.starts([0x00, 0x4D, 0x52, 0x4D]) || (h.at(0, "FOVb") && b.count >= 8 && b[4] < 0x10 && b[5] == 0 && b[6] < 0x10 && b[7] == 0) { return .cameraRaw }
        return nil
    }.picture(.cameraRaw, decoder: .raw)  // CR3 (`ISOFormats.ftyp`) too: nothing of a maker's raw goes as it came
    /// Classic TIFF (42), and BigTIFF (43: 8-byte offsets, for scans and maps past 4 GB).
    static let tiff = FormatEntry(formats: [.tiff]) { h in
        h.starts([0x49, 0x49, 0x2A, 0x00]) || h.starts([0x4D, 0x4D, 0x00, 0x2A]) || h.starts([0x49, 0x49, 0x2B, 0x00]) || h.starts([0x4D, 0x4D, 0x00, 0x2B]) ? .tiff : nil
    }.picture(.tiff, decoder: .tiff) { data, _, _ in MetadataRewrite.tiff(data) }
    /// JPEG 2000: the JP2 signature box, or a bare codestream (SOC then SIZ).
    static let jp2 = FormatEntry(formats: [.jp2]) { h in
        h.starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || h.starts([0xFF, 0x4F, 0xFF, 0x51]) ? .jp2 : nil
    }.picture(.jp2, decoder: .ffmpeg)
    /// JPEG XL: a bare codestream, or the ISO container's signature box.
    static let jxl = FormatEntry(formats: [.jxl]) { h in
        h.starts([0xFF, 0x0A]) || h.starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) ? .jxl : nil
    }.picture(.jxl, decoder: .jxl) { data, _, _ in MetadataRewrite.jxl(data) }
}
