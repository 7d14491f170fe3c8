import CLcms

/// Little CMS's entry points, opened the first time an image carries a colour profile.
enum LittleCMS {
    private static let loaded: Result<DynamicTable.Shared<clcms>, MediaPrepError> = Trace.noteTime("loaded liblcms2") {
        DynamicTable.load(clcms_libraries(), clcms_symbols(), as: clcms.self, failing: .codecUnavailable, "Little CMS is").map(DynamicTable.Shared.init)
    }

    static func table() throws -> clcms { try loaded.get().table }
}

/// An opened ICC profile, closed on every path.
final class ICCHandle {
    let cms: clcms
    let handle: cmsHPROFILE

    /// nil when the bytes are no profile Little CMS can read (a broken profile is ignored, as viewers do).
    init?(_ data: [UInt8], cms: clcms) {
        guard let h = data.withUnsafeBytes({ cms.cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else { return nil }
        (self.cms, handle) = (cms, h)
    }

    init?(sRGB cms: clcms) {
        guard let h = cms.cmsCreate_sRGBProfile() else { return nil }
        (self.cms, handle) = (cms, h)
    }

    deinit { _ = cms.cmsCloseProfile(handle) }

    var colorSpace: cmsColorSpaceSignature { cms.cmsGetColorSpace(handle) }

    /// The profile's own description ("Display P3"), in English where it has one.
    var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = cms.cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
        guard n > 0 else { return "an embedded profile" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingSpaces().isEmpty ? "an embedded profile" : text
    }
}

/// A transform from a source profile to sRGB (relative colorimetric, black-point compensation),
/// freed on every path. Not thread-safe to build; `apply` may run on several threads at once.
final class ColourTransform: @unchecked Sendable {
    enum Input { case rgb, rgba, cmyk, cmykInverted }
    private let cms: clcms
    private let transform: cmsHTRANSFORM
    let input: Input

    /// - Parameter fewSamples: only a handful of pixels will be run: the pipeline is not first
    ///   optimised into a table, which costs ~2.5 ms (3.2 → 0.75 ms a transform over the 56 RGB
    ///   profiles of this machine and the corpora, every sample's result within the same level).
    init(profile: [UInt8], input: Input, fewSamples: Bool = false) throws {
        let cms = try LittleCMS.table()
        guard let source = ICCHandle(profile, cms: cms), let srgb = ICCHandle(sRGB: cms) else {
            throw MediaPrepError(.decodeFailed, "the colour profile cannot be read")
        }
        let (from, to): (cmsUInt32Number, cmsUInt32Number) = switch input {
        case .rgb: (clcms_type_rgb8(), clcms_type_rgb8())
        case .rgba: (clcms_type_rgba8(), clcms_type_rgba8())
        case .cmyk: (clcms_type_cmyk8(), clcms_type_rgb8())
        case .cmykInverted: (clcms_type_cmyk8_inverted(), clcms_type_rgb8())
        }
        guard let t = cms.cmsCreateTransform(source.handle, from, srgb.handle, to, clcms_relative_colorimetric(),
                                             fewSamples ? clcms_flags_few_samples() : clcms_flags(input == .rgba ? 1 : 0)) else {
            throw MediaPrepError(.decodeFailed, "no transform from \(source.description) to sRGB")
        }
        (self.cms, transform, self.input) = (cms, t, input)
    }

    deinit { cms.cmsDeleteTransform(transform) }

    /// `count` pixels from `source` into `destination` (in place when they are the same memory).
    func run(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int) {
        cms.cmsDoTransform(transform, source, destination, cmsUInt32Number(count))
    }
}

import FoundationEssentials
import Glibc
