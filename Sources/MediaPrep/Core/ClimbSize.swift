/// A size the hill-climb may try: its long side, and the image's size there.
package struct ClimbSize: Sendable, Equatable {
    package let long: Int, width: Int, height: Int
}
