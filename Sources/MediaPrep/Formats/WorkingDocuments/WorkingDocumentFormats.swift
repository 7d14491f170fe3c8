/// Working files sent as files (Photoshop, GIMP, PaintShop Pro, OpenEXR, DPX, FITS, DICOM, SVG): what
/// names their sender emptied in place, every other byte as it was.
enum WorkingDocuments {
    /// Photoshop: "8BPS", version 1 (PSD) or 2 (PSB), six reserved zero bytes.
    static let psd = FormatEntry(formats: [.psd], recognise: { h in
        h.at(0, "8BPS") && h.b.count >= 12 && [1, 2].contains(Bytes.be(h.b, 4, 2)) && h.b[6..<12].allSatisfy({ $0 == 0 }) ? .psd : nil
    }, rewrite: { r, _ in try MetadataRewrite.psd(r) })
    /// GIMP: "gimp xcf ", a version ("file", "v001"…) and its terminating zero.
    static let xcf = FormatEntry(formats: [.xcf], recognise: { h in h.at(0, "gimp xcf ") && h.b.count >= 14 && h.b[13] == 0 ? .xcf : nil },
                                 rewrite: { r, _ in try MetadataRewrite.xcf(r) })
    static let psp = FormatEntry(formats: [.psp], recognise: { h in h.b.count >= 32 && Array(h.b.prefix(32)) == MetadataRewrite.pspSignature ? .psp : nil },
                                 rewrite: { r, _ in try MetadataRewrite.psp(r) })
    /// OpenEXR's magic and version 2.
    static let exr = FormatEntry(formats: [.exr], recognise: { h in h.starts([0x76, 0x2F, 0x31, 0x01]) && h.b.count >= 8 && h.b[4] == 2 ? .exr : nil },
                                 rewrite: { r, _ in try MetadataRewrite.exr(r) })
    /// DPX's magic in either byte order, then its version ("V1.0", "V2.0").
    static let dpx = FormatEntry(formats: [.dpx], recognise: { h in (h.at(0, "SDPX") || h.at(0, "XPDS")) && (h.at(8, "V") || h.at(8, "v")) ? .dpx : nil },
                                 rewrite: { r, _ in try MetadataRewrite.dpx(r) })
    /// FITS's first card, SIMPLE = T.
    static let fits = FormatEntry(formats: [.fits], recognise: { h in
        h.at(0, "SIMPLE  =") && h.b.count >= 30 && h.b[29] == 0x54 && h.b[9..<29].allSatisfy({ $0 == 0x20 }) ? .fits : nil
    }, rewrite: { r, _ in try MetadataRewrite.fits(r) })
    /// DICOM: a 128-byte preamble, then "DICM" (past the 64 bytes the magics above look at).
    static let dicom = FormatEntry(formats: [.dicom], recognise: { h in h.data.count >= 132 && h.data[128..<132].elementsEqual("DICM".utf8) ? .dicom : nil },
                                   rewrite: { r, _ in try MetadataRewrite.dicom(r) })
    static let svg = FormatEntry(formats: [.svg], recognise: { FormatSniffer.isSVG($0.data.prefix(FormatSniffer.svgLength)) ? .svg : nil },
                                 rewrite: { r, _ in try MetadataRewrite.svg(r) })
    /// SVGZ: gzip whose start inflates to an SVG's (a .tar.gz or a gzipped log is no drawing).
    static let svgz = FormatEntry(formats: [.svgz], recognise: { h in
        Gzip.isGzip(h.b) && FormatSniffer.isSVG(Gzip.inflatePrefix(Array(h.data.prefix(1 << 16)), limit: FormatSniffer.svgLength)) ? .svgz : nil
    }, rewrite: { r, _ in try MetadataRewrite.svgz(r) })
}
