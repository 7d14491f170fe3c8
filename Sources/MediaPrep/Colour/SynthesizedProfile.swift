import CLcms

/// Profiles for colours a file names without one (PNG cICP and cHRM, HEIF nclx), so those pictures
/// are converted to sRGB as an embedded profile would be.
enum SynthesizedProfile {
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
}
