import FoundationEssentials
import Glibc

/// A FITS image (an astronomer's, or an astrophotographer's from N.I.N.A., SharpCap or an ASIAIR) goes
/// as a file: its calibrated pixels and their exposure, gain and sky coordinates are what it is shared
/// for. Capture programs also write the observing site's latitude and longitude (often a home
/// garden), the observer's and the licensed owner's names, the night's dates, the camera and
/// telescope, and history. Those cards become blank cards in place (80 spaces: commentary to every
/// reader), in every header of the file, each header block and all data as they were.
extension MetadataRewrite {
    /// FITS keywords (the first 8 columns, trimmed) that name the sender, and what they say.
    private static func fitsField(_ key: String) -> PrivateFields? {
        switch key {
        case "SITELAT", "SITELONG", "SITEELEV", "SITENAME", "SITE", "OBSERVAT", "LATITUDE", "LONGITUD", "ALTITUDE",
             "LAT-OBS", "LONG-OBS", "ELEV-OBS", "ALT-OBS", "OBS-LAT", "OBS-LONG", "OBS-ELEV", "OBSLAT", "OBSLONG", "OBSELEV",
             "GEOLAT", "GEOLON", "GEOLONG", "GEOELEV":
            return .location
        case _ where key.hasPrefix("OBSGEO"): return .location
        case "OBSERVER", "AUTHOR", "ORIGIN", "CREATOR", "USER", "USERNAME", "OWNER", "SWOWNER", "INSTITUT": return .author
        case "TIME-OBS", "TIME_OBS", "TIME-END", "UT", "UTSTART", "UT-START", "UTC-OBS", "LOCALTIM", "LST",
             "MJD-OBS", "MJD_OBS", "MJD-BEG", "MJD-END", "MJD-AVG", "JD", "JD-OBS", "JD_OBS", "JD-BEG", "JD-END", "JD-HELIO", "HJD", "BJD":
            return .dates
        // DATE, DATE-OBS, DATE-BEG…, but not DATEREF, the time system's reference epoch (as MJDREF is).
        case _ where key.hasPrefix("DATE") && key != "DATEREF": return .dates
        case "TELESCOP", "INSTRUME", "CAMERA", "DETECTOR", "SERIALNO", "SERIAL": return .device
        case "COMMENT", "HISTORY": return .comment
        case "SWCREATE", "SWMODIFY", "PROGRAM", "SOFTWARE", "FILENAME": return .other
        default: return nil
        }
    }

    /// The rewrite of a FITS file's private cards; nil when it has none. A header without its END
    /// card, or data shorter than its header says, is cut off.
    static func fits(_ r: ByteReader) throws -> MetadataRewrite? {
        guard r.size >= 80, Bytes.ascii(try r.read(0, 30), 0, 30).hasPrefix("SIMPLE  =") else { return nil }
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var at = 0
        for hdu in 0..<1_000 {  // a hostile file's extensions cannot make the walk long
            // What follows the last extension (special records, padding, junk) is no header of ours.
            if at >= r.size { break }
            if hdu > 0, Bytes.ascii(try r.read(at, min(9, r.size - at)), 0, min(9, r.size - at)) != "XTENSION=" { break }
            var values: [String: String] = [:]
            var blanking = false, end = false, block = 0
            var blanked = 0, checksum: Int? = nil
            func blank(_ card: Int) { edits.append((card..<(card + 80), [.bytes([UInt8](repeating: 0x20, count: 80))])) }
            while !end {
                guard block < 100_000 else { throw MediaPrepError(.corrupt, "a FITS header has no END card") }
                // A header is whole blocks; one whose END card arrives in a last block cut short (as
                // exiftool's sample is) is read as far as it goes.
                let from = at + block * 2880
                let cards = try r.read(from, min(2880, max(0, r.size - from)))
                for c in 0..<(cards.count / 80) {
                    let card = Array(cards[(c * 80)..<(c * 80 + 80)])
                    let key = Bytes.ascii(card, 0, 8).trimmingSpaces()
                    if key == "END" { end = true; break }
                    if key == "CHECKSUM" { checksum = from + c * 80 }
                    if key == "CONTINUE", blanking { blank(from + c * 80); continue }
                    blanking = false
                    if let field = fitsField(key) {
                        found.insert(field)
                        blanking = true
                        blanked += 1
                        blank(from + c * 80)
                    } else if card[8] == 0x3D {  // "= ": a value
                        values[key] = Bytes.ascii(card, 10, 70).split(separator: "/").first.map { $0.trimmingSpaces() } ?? ""
                    }
                }
                if !end && cards.count < 2880 {
                    throw MediaPrepError(.truncated, "the FITS is cut off inside header \(hdu), before its END card")
                }
                block += 1
            }
            // The header's checksum no longer holds once a card is blanked; its data's (DATASUM) does.
            if blanked > 0, let checksum { blank(checksum) }
            let dataAt = min(r.size, at + block * 2880)
            let data = try fitsDataBytes(values)
            guard dataAt + data <= r.size else {
                throw MediaPrepError(.truncated, "the FITS is cut off: header \(hdu)'s data ends at byte \(dataAt + data), the file has \(r.size)")
            }
            at = dataAt + (data + 2879) / 2880 * 2880
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// Bytes of data after a header: |BITPIX|/8 × GCOUNT × (PCOUNT + NAXIS1 × … × NAXISn), random
    /// groups leaving out NAXIS1 (which is 0).
    private static func fitsDataBytes(_ v: [String: String]) throws -> Int {
        func int(_ k: String, _ fallback: Int) -> Int { v[k].flatMap { Int($0) } ?? fallback }
        let axes = int("NAXIS", 0)
        guard axes > 0 else { return 0 }
        guard axes <= 999, let bitpix = v["BITPIX"].flatMap({ Int($0) }), [8, 16, 32, 64, -32, -64].contains(bitpix) else {
            throw MediaPrepError(.corrupt, "a FITS header gives no valid BITPIX or NAXIS")
        }
        let groups = v["GROUPS"] == "T" && int("NAXIS1", -1) == 0
        var count = 1
        for k in 1...axes where !(groups && k == 1) {
            let n = int("NAXIS\(k)", -1)
            guard n >= 0 else { throw MediaPrepError(.corrupt, "a FITS header gives no NAXIS\(k)") }
            count = try bounded(count.multipliedReportingOverflow(by: n))
        }
        let elements = try bounded(int("GCOUNT", 1).multipliedReportingOverflow(by: try bounded(int("PCOUNT", 0).addingReportingOverflow(count))))
        return abs(bitpix) / 8 * elements
    }

    /// A count no file can hold (past 2^50, or overflowed) makes the header damaged.
    private static func bounded(_ r: (partialValue: Int, overflow: Bool)) throws -> Int {
        guard !r.overflow, r.partialValue >= 0, r.partialValue < 1 << 50 else {
            throw MediaPrepError(.corrupt, "a FITS header's axes or group counts are out of range")
        }
        return r.partialValue
    }
}

extension WorkingDocuments {
    /// FITS's first card, SIMPLE = T.
    static let fits = FormatEntry(formats: [.fits], recognise: { h in
        h.at(0, "SIMPLE  =") && h.b.count >= 30 && h.b[29] == 0x54 && h.b[9..<29].allSatisfy({ $0 == 0x20 }) ? .fits : nil
    }, rewrite: { r, _ in try MetadataRewrite.fits(r) })
}
