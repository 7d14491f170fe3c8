import Testing
@testable import MediaPrep

@Suite struct OrientationTests {
    @Test(arguments: 1...8)
    func exifTagIsRead(n: Int) throws {
        let o = ExifOrientation.fromJPEG(try Fixture.bytes("orient-\(n).jpg"))
        #expect(o.rawValue == n)
    }

    @Test(arguments: 1...8)
    func everyOrientationDecodesUpright(n: Int) throws {
        let d = try ImageLoader.load(path: Fixture.path("orient-\(n).jpg"))
        let upright = Orienter.apply(d.orientation, to: d.pixels)
        #expect(d.displayWidth == Quadrants.width && d.displayHeight == Quadrants.height)
        Quadrants.check(upright, tolerance: 24)
    }

    @Test func brokenExifIsIgnored() throws {
        var jpeg = try Fixture.bytes("orient-1.jpg")
        // An APP1 Exif segment whose TIFF header and IFD offset are garbage.
        let bogus: [UInt8] = [0xFF, 0xE1, 0x00, 0x12] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0xFF, 0xFF, 0xFF, 0x00, 1, 2]
        jpeg.insert(contentsOf: bogus, at: 2)
        #expect(ExifOrientation.fromJPEG(jpeg) == .up)
        let d = try JPEGDecoder.decode(jpeg)
        Quadrants.check(d.pixels, tolerance: 24)
    }

    @Test func exifIFDParsesBothByteOrders() {
        // Big-endian and little-endian TIFF with a single orientation entry (6).
        let be: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
        let le: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        #expect(ExifOrientation.fromTIFF(be[...]) == .right)
        #expect(ExifOrientation.fromTIFF(le[...]) == .right)
        #expect(ExifOrientation.fromTIFF(be.prefix(12)) == .up)  // cut inside the IFD
    }

    @Test func transformsMapCornersCorrectly() throws {
        // 3×2 image whose pixel values are their indices, gray.
        let src = try PixelBuffer(width: 3, height: 2, layout: .gray, bytes: [0, 1, 2, 3, 4, 5])
        #expect(Orienter.apply(.right, to: src).bytes == [3, 0, 4, 1, 5, 2])
        #expect(Orienter.apply(.left, to: src).bytes == [2, 5, 1, 4, 0, 3])
        #expect(Orienter.apply(.down, to: src).bytes == [5, 4, 3, 2, 1, 0])
        #expect(Orienter.apply(.upMirrored, to: src).bytes == [2, 1, 0, 5, 4, 3])
        #expect(Orienter.apply(.downMirrored, to: src).bytes == [3, 4, 5, 0, 1, 2])
        #expect(Orienter.apply(.leftMirrored, to: src).bytes == [0, 3, 1, 4, 2, 5])
        #expect(Orienter.apply(.rightMirrored, to: src).bytes == [5, 2, 4, 1, 3, 0])
        #expect(Orienter.apply(.right, to: src).width == 2)
    }
}
