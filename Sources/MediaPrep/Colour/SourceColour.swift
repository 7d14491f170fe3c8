import CLcms
import Dispatch

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
