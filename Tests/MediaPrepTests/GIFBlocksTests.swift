import Foundation
import Testing
@testable import MediaPrep

/// A GIF cut inside a block is refused, not sent with the frames FFmpeg could read; one that only
/// lacks its trailer is whole, and still loses its comments.
@Suite struct GIFBlocksTests {
    @Test func theWalkFindsEveryFrameAndTheTrailer() throws {
        let gif = try Fixture.bytes("anim.gif")
        let walk = try #require(GIFBlocks.walk(gif))
        #expect(walk.frames == 3)
        #expect(walk.end == .trailer(gif.count - 1))
        #expect(GIFBlocks.walk(Array(gif[0..<12])) == nil)  // inside the screen descriptor
        #expect(GIFBlocks.walk(Array("GIF89a".utf8)) == nil)
        let stray = try #require(GIFBlocks.walk(Array(gif.dropLast()) + [0x00]))
        #expect(stray.frames == 3 && stray.end == .strayByte(at: gif.count - 1))
    }

    /// The loop count is read from the NETSCAPE2.0 extension the walk finds, not from the first bytes
    /// spelling its name (here a comment quoting one that would say 6 plays).
    @Test func theLoopCountIsTheExtensionsNotAQuotesOne() throws {
        let gif = try Fixture.bytes("anim.gif")
        let walk = try #require(GIFBlocks.walk(gif))
        let plays = walk.plays(in: gif)
        let quote = Array("NETSCAPE2.0".utf8) + [3, 1, 5, 0]
        let quoted = Array(gif[0..<walk.start]) + [0x21, 0xFE, UInt8(quote.count)] + quote + [0] + Array(gif[walk.start...])
        #expect(AnimationHeaders.gifPlays(quoted) == plays)
        // Without the extension it plays once; with a loop count of 2 it plays 3 times.
        let looped = try #require(walk.blocks.lazy.compactMap { block -> Range<Int>? in
            if case .extension(0xFF, let r) = block, GIFBlocks.applicationID(gif, r) == "NETSCAPE2.0" { return r } else { return nil }
        }.first)
        var twice = gif
        (twice[looped.lowerBound + 16], twice[looped.lowerBound + 17]) = (2, 0)
        #expect(AnimationHeaders.gifPlays(twice) == 3)
        #expect(AnimationHeaders.gifPlays(Array(gif[..<looped.lowerBound]) + Array(gif[looped.upperBound...])) == 1)
    }

    /// Every prefix of anim.gif: cut inside a block it is `truncated` (or has no complete image);
    /// cut between blocks it is whole but for its trailer, and then probed as the frames it holds.
    @Test func everyCutIsRefusedOrWhole() throws {
        let gif = try Fixture.bytes("anim.gif")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var refused = 0, whole = 0
        for n in 13..<gif.count {
            let prefix = Array(gif[0..<n])
            let path = try Fixture.write(prefix, "cut-\(n).gif", in: dir)
            let walk = GIFBlocks.walk(prefix)  // nil: cut inside the global colour table
            do {
                let s = try MediaProbe.source(path: path)
                #expect(walk?.end == .endOfData, "byte \(n): \(String(describing: walk?.end)) was probed as whole")
                #expect(s.probe.frameCount == walk?.frames)
                whole += 1
            } catch let e as MediaPrepError {
                #expect(e.code == .truncated, "byte \(n): \(e)")
                refused += 1
            }
        }
        #expect(whole >= 2 && refused > 200, "whole \(whole), refused \(refused)")
    }

    @Test func anAnimationCutInItsLastFrameCannotBeSent() throws {
        let gif = try Fixture.bytes("anim.gif")
        let walk = try #require(GIFBlocks.walk(gif))
        guard case .image(let last) = try #require(walk.blocks.last(where: { if case .image = $0 { true } else { false } })) else { return }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Two complete frames, and half of the third: FFmpeg reads two and says nothing.
        let path = try Fixture.write(Array(gif[0..<(last.lowerBound + last.count / 2)]), "cut.gif", in: dir)
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .cannotSend && check.code == "truncated", "\(check.verdict) \(check.reasons)")
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.output == nil && item.error?.code == .truncated)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? []).isEmpty)
    }

    /// Its comment used to go with it: the stripper gave up on a GIF without a trailer.
    @Test func aGIFWithoutItsTrailerIsSentWithoutItsComment() throws {
        let gif = try AnimationMetadataTests.gifWithMetadata()
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(Array(gif.dropLast()), "no-trailer.gif", in: dir)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        let sent = try FileBytes.read(out)
        #expect(item.kind == .animatedImage && item.route == .stripped)
        #expect(!sent.contains(sequence: Array("secret comment".utf8)) && !sent.contains(sequence: Array("Test Phone".utf8)))
        #expect(sent == (try Fixture.bytes("anim.gif")))  // the frames as they were, the trailer put back
    }
}
