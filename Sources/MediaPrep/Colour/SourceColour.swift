import CLcms
import CPng

/// What a source's pixel numbers mean, read once from its embedded ICC profile: nothing to do
/// (no profile, an sRGB one, one that cannot be read), or a conversion to sRGB, which every viewer
/// assumes once the profile is gone.
package struct SourceColour: Sendable, Equatable {
    let profile: [UInt8]
    /// The profile's own description ("Display P3"), as `check` reports it.
    let description: String
    let isCMYK: Bool

    /// nil when the pixels are already sRGB or cannot be interpreted otherwise: an sRGB profile is
    /// recognised by what it does to colours (27 of them within one level), not by its name.
    static func inspect(_ icc: [UInt8]?, describedAs name: String? = nil) -> SourceColour? {
        guard let icc, icc.count >= 132, let cms = try? LittleCMS.table(), let p = ICCHandle(icc, cms: cms) else { return nil }
        let description = name ?? p.description
        switch p.colorSpace {
        case cmsSigCmykData:
            return SourceColour(profile: icc, description: description, isCMYK: true)
        case cmsSigRgbData:
            guard let t = try? ColourTransform(profile: icc, input: .rgb, fewSamples: true) else { return nil }
            var samples: [UInt8] = []
            for r in [0, 128, 255] { for g in [0, 128, 255] { for b in [0, 128, 255] { samples += [UInt8(r), UInt8(g), UInt8(b)] } } }
            var out = samples
            samples.withUnsafeBytes { s in out.withUnsafeMutableBytes { o in
                if let sb = s.baseAddress, let ob = o.baseAddress { t.run(sb, ob, count: 27) }
            } }
            let srgb = zip(samples, out).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
            return srgb ? nil : SourceColour(profile: icc, description: description, isCMYK: false)
        default:
            return nil  // gray and other spaces: the numbers are shown as they are
        }
    }

    /// Converts decoded RGB or RGBA pixels to sRGB, in two halves side by side for large images.
    func toSRGB(_ image: PixelBuffer, threads: Int) throws -> PixelBuffer {
        guard !isCMYK, image.layout == .rgb || image.layout == .rgba else { return image }
        let t = try ColourTransform(profile: profile, input: image.layout == .rgba ? .rgba : .rgb)
        var pixels = image.bytes
        let channels = image.layout.channels, count = image.pixelCount
        let parts = threads > 1 && count > 500_000 ? 2 : 1
        pixels.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let shared = UnsafeSendableRaw(base)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let start = count * part / parts, end = count * (part + 1) / parts
                let p = shared.pointer + start * channels
                t.run(p, p, count: end - start)
            }
        }
        return PixelBuffer(width: image.width, height: image.height, layout: image.layout, storage: pixels)
    }

    /// The `description` a `check` prints: "colours converted from Display P3 to sRGB".
    var reason: String { "colours converted from \(description) to sRGB" }
}

/// A raw address handed to parallel bands that each touch only their own pixels.
private struct UnsafeSendableRaw: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ p: UnsafeMutableRawPointer) { pointer = p }
}

/// Where the profiles are: JPEG APP2 segments (a profile over 64 KB spans several), PNG iCCP — or,
/// for a PNG, the chunks that name its colours without a profile (cICP, cHRM).
enum EmbeddedProfile {
    /// `ICC_PROFILE\0`, sequence number, count, then the bytes: joined in sequence order.
    static func fromJPEG(_ data: [UInt8], markers: JPEGMarkers) -> [UInt8]? {
        let tag = Array("ICC_PROFILE\0".utf8)
        var parts: [(Int, ArraySlice<UInt8>)] = []
        for s in markers.segments where s.marker == 0xE2 && s.payload.count > tag.count + 2 {
            let start = s.payload.lowerBound
            guard Array(data[start..<start + tag.count]) == tag else { continue }
            parts.append((Int(data[start + tag.count]), data[(start + tag.count + 2)..<s.payload.upperBound]))
        }
        guard !parts.isEmpty else { return nil }
        return parts.sorted { $0.0 < $1.0 }.flatMap { $0.1 }
    }

    /// A PNG's colours, in the PNG (third edition) order of precedence: cICP, iCCP, sRGB, cHRM.
    /// Returns a profile to inspect and what to call it; nil when the file is sRGB or says nothing.
    static func ofPNG(_ data: [UInt8]) -> (profile: [UInt8], name: String?)? {
        let chunks = PNGChunks.chunks(data).prefix { $0.type != "IDAT" }
        if let c = chunks.first(where: { $0.type == "cICP" }), c.body.count >= 4 {
            // Colour primaries (H.273): 1 BT.709/sRGB, 12 Display P3, 9 BT.2020; SDR transfers only.
            let primaries = data[c.body.lowerBound], transfer = data[c.body.lowerBound + 1]
            return forCodePoints(primaries: Int(primaries), transfer: Int(transfer)).map { ($0.profile, "\($0.name) (cICP)") }
        }
        if let icc = fromPNG(data) { return (icc, nil) }
        if chunks.contains(where: { $0.type == "sRGB" }) { return nil }
        if let c = chunks.first(where: { $0.type == "cHRM" }), c.body.count == 32 {
            func v(_ i: Int) -> Double {
                let o = c.body.lowerBound + 4 * i
                return Double(Int(data[o]) << 24 | Int(data[o + 1]) << 16 | Int(data[o + 2]) << 8 | Int(data[o + 3])) / 100_000
            }
            return synthesized(red: (v(2), v(3)), green: (v(4), v(5)), blue: (v(6), v(7)), white: (v(0), v(1)))
                .map { ($0, "the PNG's cHRM primaries") }
        }
        return nil
    }

    /// A profile for H.273 code points (PNG cICP, HEIF nclx), so both containers map alike: colour
    /// primaries 12 Display P3 and 9 BT.2020 with an SDR transfer; nil for BT.709/sRGB and the rest.
    static func forCodePoints(primaries: Int, transfer: Int) -> (profile: [UInt8], name: String)? {
        guard [1, 6, 13, 14, 15].contains(transfer) else { return nil }  // PQ/HLG stills are not mapped here
        switch primaries {
        case 12: return synthesized(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.3127, 0.3290)).map { ($0, "Display P3") }
        case 9: return synthesized(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: (0.3127, 0.3290)).map { ($0, "BT.2020") }
        default: return nil
        }
    }

    /// An ICC profile with these primaries and white point and sRGB's tone curve (the pixels are
    /// sRGB-encoded by then: libpng has applied any gAMA), from Little CMS, as bytes.
    static func synthesized(red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                            white: (Double, Double)) -> [UInt8]? {
        guard let cms = try? LittleCMS.table() else { return nil }
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]  // the sRGB curve (type 4)
        guard let curve = cms.cmsBuildParametricToneCurve(nil, 4, &parameters) else { return nil }
        defer { cms.cmsFreeToneCurve(curve) }
        var wp = cmsCIExyY(x: white.0, y: white.1, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
                                        Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = cms.cmsCreateRGBProfile(&wp, &primaries, &curves) else { return nil }
        defer { _ = cms.cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        guard cms.cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cms.cmsSaveProfileToMem(profile, &bytes, &size) != 0 else { return nil }
        return bytes
    }

    /// JPEG 2000 (JP2): the first `colr` box in the header box (`jp2h`), when it holds a profile (method
    /// 2, restricted, or 3, any ICC) rather than naming sRGB or gray (method 1). FFmpeg's decoder reads
    /// no profile: a scanner's or macOS Preview's Display P3 JP2 came out with P3 numbers as sRGB.
    static func fromJP2(_ data: [UInt8]) -> [UInt8]? {
        guard let top = PictureBoxes.children(data, 0..<data.count, topLevel: true),
              let header = top.boxes.first(where: { $0.type == "jp2h" }),
              let colr = PictureBoxes.children(data, header.body, topLevel: false)?.boxes.first(where: { $0.type == "colr" }),
              colr.body.count > 3, [2, 3].contains(data[colr.body.lowerBound]) else { return nil }
        return Array(data[(colr.body.lowerBound + 3)..<colr.body.upperBound])
    }

    /// iCCP: a name, a NUL, compression method 0, then the zlib-compressed profile (before IDAT).
    static func fromPNG(_ data: [UInt8]) -> [UInt8]? {
        guard let chunk = PNGChunks.chunks(data).first(where: { $0.type == "iCCP" || $0.type == "IDAT" }), chunk.type == "iCCP",
              let nul = data[chunk.body].firstIndex(of: 0), nul + 2 < chunk.body.upperBound, data[nul + 1] == 0 else { return nil }
        let compressed = Array(data[(nul + 2)..<chunk.body.upperBound])
        var out = [UInt8](repeating: 0, count: 4 << 20)  // profiles are KBs; 4 MB bounds a zip bomb
        let n = compressed.withUnsafeBufferPointer { c in
            out.withUnsafeMutableBufferPointer { o in cpng_inflate(c.baseAddress, c.count, o.baseAddress, o.count) }
        }
        return n > 0 ? Array(out.prefix(n)) : nil
    }
}

import Dispatch
