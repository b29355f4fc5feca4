// Bindings between captured cases and the port; filled in by the replay issue.
namespace pod::bindings {}
