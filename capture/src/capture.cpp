// The capture layer's translation unit anchor; the state log reader and the drivers add theirs.
namespace lockstep::capture {}
