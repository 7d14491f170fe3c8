import CFFmpeg
import Foundation
import Testing
import TestSupport
@testable import MediaPrep

/// Paths into the committed testdata/ folder.
enum Fixture {
    static let dir: String = {
        BatchPreparer.setFFmpegLogLevel(.quiet)  // every test reads a fixture first: no libav lines in the test output
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("testdata").path
    }()

    static func path(_ name: String) -> String { dir + "/" + name }
    static func bytes(_ name: String) throws -> [UInt8] { try FileBytes.read(path(name)) }

    /// A fresh, empty scratch folder (removed with the others when the test process exits).
    static func scratch() throws -> String { try Scratch.folder("mediaprep-test") }

    /// `bytes` written as `dir/name`; its path.
    static func write(_ bytes: [UInt8], _ name: String, in dir: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// The fixtures' "quadrants" picture: 64×48, red / lime over blue / white.
enum Quadrants {
    static let width = 64, height = 48
    static let samples: [(x: Int, y: Int, rgb: (Int, Int, Int))] = [
        (8, 6, (255, 0, 0)), (56, 6, (0, 255, 0)), (8, 42, (0, 0, 255)), (56, 42, (255, 255, 255)),
    ]

    /// Checks the four quadrant centers within `tolerance` per channel (JPEG needs some).
    static func check(_ p: PixelBuffer, tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(p.width == width && p.height == height, sourceLocation: sourceLocation)
        guard p.width == width, p.height == height else { return }
        for s in samples {
            let px = p.rgba(x: s.x, y: s.y)
            let got = (Int(px.r), Int(px.g), Int(px.b))
            let ok = abs(got.0 - s.rgb.0) <= tolerance && abs(got.1 - s.rgb.1) <= tolerance
                && abs(got.2 - s.rgb.2) <= tolerance
            #expect(ok, "pixel (\(s.x),\(s.y)) is \(got), expected \(s.rgb)", sourceLocation: sourceLocation)
        }
    }
}

/// Peak signal-to-noise ratio between two same-size images, in dB.
func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.bytes.count == b.bytes.count)
    var sum = 0.0
    for i in 0..<a.bytes.count {
        let d = Double(a.bytes[i]) - Double(b.bytes[i])
        sum += d * d
    }
    let mse = sum / Double(a.bytes.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// Every packet of every stream FFmpeg reads from a file (stream index, timestamps, flags, bytes):
/// what `ffmpeg -map 0 -c copy -f streamhash` hashes. `skipPictures` leaves out attached pictures
/// (cover art), which FFmpeg shows as a stream of their own.
enum Packets {
    struct Packet: Equatable { var stream: Int32; var pts: Int64; var dts: Int64; var flags: Int32; var data: [UInt8] }

    static func all(_ path: String, skipPictures: Bool = false) throws -> [Packet] {
        let input = try MediaInput(path: path)
        let media = input.ff.media
        var pkt = media.av_packet_alloc()
        defer { media.av_packet_free(&pkt) }
        guard let p = pkt else { return [] }
        var pictures = Set<Int32>()
        for i in 0..<Int(input.context.pointee.nb_streams) {
            if let st = input.context.pointee.streams[i], st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { pictures.insert(Int32(i)) }
        }
        var out: [Packet] = []
        while media.av_read_frame(input.context, p) >= 0 {
            if !(skipPictures && pictures.contains(p.pointee.stream_index)) {
                let data = p.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.pointee.size))) } ?? []
                out.append(Packet(stream: p.pointee.stream_index, pts: p.pointee.pts, dts: p.pointee.dts, flags: p.pointee.flags, data: data))
            }
            media.av_packet_unref(p)
        }
        return out
    }
}
