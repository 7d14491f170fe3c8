/// The view-size image the decoder scaled, packed on first use and then kept.
final class LazyView {
    private let make: () throws -> PixelBuffer
    private var made: PixelBuffer?

    init(_ make: @escaping () throws -> PixelBuffer) { self.make = make }

    func pixels() throws -> PixelBuffer {
        if let made { return made }
        let p = try make()
        made = p
        return p
    }
}
