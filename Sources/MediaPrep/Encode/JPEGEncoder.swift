import CJpeg
import Foundation

/// JPEG through TurboJPEG. A class owning one tjhandle (not thread-safe, hence not Sendable):
/// each thread of a parallel search makes its own.
public final class JPEGEncoder {
    private let handle: TurboJPEGHandle

    /// TurboJPEG 2.1 turns on optimized Huffman tables for baseline JPEG only through this
    /// variable (read per compression): ~5 % smaller at no visible cost, half a progressive
    /// encode's time. Set once, before the first encoder exists.
    private static let optimizeHuffman: Void = { setenv("TJ_OPTIMIZE", "1", 1) }()

    public init() throws {
        _ = Self.optimizeHuffman
        handle = try TurboJPEGHandle(.compress)
    }

    /// What TurboJPEG is handed: alpha flattened on white, gray kept one channel, 4:2:0 chroma otherwise.
    private static func input(_ image: PixelBuffer) -> (PixelBuffer, TJPF, TJSAMP) {
        let src = image.layout == .rgba ? AlphaOps.flattenOnWhite(image) : image
        switch src.layout {
        case .gray: return (src, TJPF_GRAY, TJSAMP_GRAY)
        case .rgbx: return (src, TJPF_RGBX, TJSAMP_420)
        default: return (src, TJPF_RGB, TJSAMP_420)
        }
    }

    /// Encodes with 4:2:0 chroma (gray stays one channel); output carries JFIF only, no metadata.
    public func encode(_ image: PixelBuffer, quality: Int, progressive: Bool = false) throws -> [UInt8] {
        let (src, format, subsampling) = Self.input(image)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        var flags = TJFLAG_ACCURATEDCT
        if progressive { flags |= TJFLAG_PROGRESSIVE }
        let q = Int32(min(100, max(1, quality)))
        let rc = src.bytes.withUnsafeBufferPointer { p in
            tjCompress2(handle.raw, p.baseAddress, Int32(src.width), Int32(src.rowBytes), Int32(src.height),
                        Int32(format.rawValue), &out, &size, Int32(subsampling.rawValue), q, flags)
        }
        guard rc == 0, let out else {
            throw MediaPrepError(.encodeFailed, "JPEG encoding failed: \(handle.lastError)")
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// Color-converts and downsamples once, exactly as `encode` would, so a quality search
    /// can compress the same planes many times without redoing that work.
    public func planes(_ image: PixelBuffer) throws -> YUVPlanes {
        let (src, format, subsampling) = Self.input(image)
        let size = Int(tjBufSizeYUV2(Int32(src.width), 1, Int32(src.height), Int32(subsampling.rawValue)))
        guard size > 0 else { throw MediaPrepError(.encodeFailed, "no YUV size for \(src.width)×\(src.height)") }
        var yuv = [UInt8](repeating: 0, count: size)
        let rc = src.bytes.withUnsafeBufferPointer { p in
            yuv.withUnsafeMutableBufferPointer { d in
                tjEncodeYUV3(handle.raw, p.baseAddress, Int32(src.width), Int32(src.rowBytes), Int32(src.height),
                             Int32(format.rawValue), d.baseAddress, 1, Int32(subsampling.rawValue), TJFLAG_ACCURATEDCT)
            }
        }
        guard rc == 0 else { throw MediaPrepError(.encodeFailed, "YUV conversion failed: \(handle.lastError)") }
        return YUVPlanes(width: src.width, height: src.height, subsampling: subsampling.rawValue, bytes: yuv)
    }

    /// Compresses planes made by `planes(_:)`; the bytes equal `encode` on the original image.
    public func encode(_ yuv: YUVPlanes, quality: Int, progressive: Bool = false) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        var flags = TJFLAG_ACCURATEDCT
        if progressive { flags |= TJFLAG_PROGRESSIVE }
        let rc = yuv.bytes.withUnsafeBufferPointer { p in
            tjCompressFromYUV(handle.raw, p.baseAddress, Int32(yuv.width), 1, Int32(yuv.height), Int32(yuv.subsampling),
                              &out, &size, Int32(min(100, max(1, quality))), flags)
        }
        guard rc == 0, let out else { throw MediaPrepError(.encodeFailed, "JPEG encoding failed: \(handle.lastError)") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}

/// An image already in JPEG's color space and chroma layout (TurboJPEG's packed YUV, no row padding).
public struct YUVPlanes: Sendable {
    public let width: Int
    public let height: Int
    let subsampling: UInt32
    let bytes: [UInt8]
}
