/* Entry thunks: at each POD address of functions.def, a short Watcom -> cdecl bridge to the C body, so a
 * function of any size lives at its POD address and a capture there sees every call
 * (tests/standin/README.md, "Calling scheme"). */
        .intel_syntax noprefix

/* Watcom in: eax, edx, ebx, ecx, then NSTACK words on the stack (the callee pops them).
 * The body: int32_t body(eax, edx, ebx, ecx, stack0, ...), cdecl; it may clobber eax, ecx, edx, so
 * the thunk keeps ecx and edx. */
        .macro POD_THUNK addr, body, nstack
        .section .pod.fn.\addr,"ax",@progbits
        .globl pod_\addr
        .type pod_\addr,@function
pod_\addr:
        push    ecx
        push    edx
        .rept \nstack
        push    dword ptr [esp + 12 + 4 * (\nstack - 1)]   /* stack arguments, last first */
        .endr
        push    ecx
        push    ebx
        push    edx
        push    eax
        call    \body
        add     esp, 16 + 4 * \nstack
        pop     edx
        pop     ecx
        .if \nstack
        ret     4 * \nstack
        .else
        ret
        .endif
        .size pod_\addr, .-pod_\addr
        .endm

/* A step-log hook: eax = racer (or nothing); every register, the flags and the x87 control word
 * stay as they were, as 000's hooks "save every register and redo the instructions they replace". */
        .macro POD_HOOK addr, body
        .section .pod.fn.\addr,"ax",@progbits
        .globl pod_\addr
        .type pod_\addr,@function
pod_\addr:
        pushfd
        pushad
        cld
        push    eax
        call    \body
        add     esp, 4
        popad
        popfd
        ret
        .size pod_\addr, .-pod_\addr
        .endm

#define POD_FUNCTION(addr, body, nstack) POD_THUNK addr, body, nstack
#define POD_HOOK(addr, body) POD_HOOK addr, body
#include "functions.def"

        .section .note.GNU-stack,"",@progbits
