import Testing
@testable import MediaPrep

@Suite struct FFmpegImageTests {
    @Test(arguments: ["image.bmp", "still.gif"])
    func stillFormatsDecodeThroughFFmpeg(name: String) throws {
        let d = try ImageLoader.load(path: Fixture.path(name))
        // GIF is palettized; it keeps these flat colors close.
        Quadrants.check(d.pixels, tolerance: 2)
    }

    @Test func animatedGIFCountsFrames() throws {
        let r = try FFmpegImageDecoder.decode(path: Fixture.path("anim.gif"), format: .gif, countFrames: true)
        #expect(r.frameCount == 3)
        let first = r.image.pixels.rgba(x: 10, y: 10)
        #expect(first.r > 250 && first.g < 5 && first.b < 5)  // frame 1 is red
        let still = try FFmpegImageDecoder.decode(path: Fixture.path("still.gif"), format: .gif, countFrames: true)
        #expect(still.frameCount == 1)
    }
}

@Suite struct FFmpegImagesFromMemoryTests {
    @Test(arguments: ["image.webp", "image.bmp", "still.gif"])
    func decodesWithoutAFile(_ name: String) throws {
        let d = try ImageLoader.load(data: try Fixture.bytes(name), path: nil)
        Quadrants.check(d.pixels, tolerance: 40)
    }
}
