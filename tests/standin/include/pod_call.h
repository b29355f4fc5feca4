/* Calling functions of the stand-in at their POD addresses, in Watcom's register convention.
 *
 * Every function of the car physics sits at its POD address (tests/standin/README.md, "Calling scheme").
 * C code calls it with a direct `call ADDR` (rel32 to the absolute address, as POD's code does), so a
 * capture at POD's addresses sees every call. Watcom convention: arguments in eax, edx, ebx, ecx, then
 * on the stack pushed right to left (the callee pops them); result in eax; the callee preserves every
 * other register and leaves the x87 stack empty. So these macros tell gcc that only eax changes.
 *
 *   int32_t len = POD_CALL1(FN_LENGTH16, ADDR(v));
 *   POD_CALL3(FN_CROSS16, ADDR(a), ADDR(b), ADDR(out));
 *
 * Arguments are 32-bit words (pass addresses with ADDR()). The address must be a compile-time
 * constant (standin.h's FN_*). GNU C (statement expressions): build with -std=gnu11, non-PIC.
 */
#ifndef POD_CALL_H
#define POD_CALL_H

#include <stdint.h>

#define POD_CALL0(fn) ({                                                                        \
    uint32_t _pc_eax;                                                                         \
    __asm__ volatile("call %P[f]" : "=a"(_pc_eax) : [f] "i"(fn) : "memory", "cc");           \
    (int32_t)_pc_eax; })

#define POD_CALL1(fn, a) ({                                                                     \
    uint32_t _pc_eax = (uint32_t)(a);                                                         \
    __asm__ volatile("call %P[f]" : "+a"(_pc_eax) : [f] "i"(fn) : "memory", "cc");           \
    (int32_t)_pc_eax; })

#define POD_CALL2(fn, a, b) ({                                                                  \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b);                                \
    __asm__ volatile("call %P[f]" : "+a"(_pc_eax) : "d"(_pc_edx), [f] "i"(fn)                  \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

#define POD_CALL3(fn, a, b, c) ({                                                               \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b), _pc_ebx = (uint32_t)(c);       \
    __asm__ volatile("call %P[f]" : "+a"(_pc_eax) : "d"(_pc_edx), "b"(_pc_ebx), [f] "i"(fn)    \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

#define POD_CALL4(fn, a, b, c, d) ({                                                            \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b), _pc_ebx = (uint32_t)(c),       \
             _pc_ecx = (uint32_t)(d);                                                         \
    __asm__ volatile("call %P[f]" : "+a"(_pc_eax)                                             \
                     : "d"(_pc_edx), "b"(_pc_ebx), "c"(_pc_ecx), [f] "i"(fn)                   \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

/* Five and six arguments: the fifth and sixth go on the stack (pushed right to left); the callee
 * pops them (Watcom), so esp is back where gcc left it when the call returns. */
#define POD_CALL5(fn, a, b, c, d, e) ({                                                         \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b), _pc_ebx = (uint32_t)(c),       \
             _pc_ecx = (uint32_t)(d), _pc_e = (uint32_t)(e);                                  \
    __asm__ volatile("pushl %[e]\n\tcall %P[f]" : "+a"(_pc_eax)                               \
                     : "d"(_pc_edx), "b"(_pc_ebx), "c"(_pc_ecx), [e] "S"(_pc_e), [f] "i"(fn)   \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

#define POD_CALL6(fn, a, b, c, d, e, g) ({                                                      \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b), _pc_ebx = (uint32_t)(c),       \
             _pc_ecx = (uint32_t)(d), _pc_e = (uint32_t)(e), _pc_g = (uint32_t)(g);           \
    __asm__ volatile("pushl %[g]\n\tpushl %[e]\n\tcall %P[f]" : "+a"(_pc_eax)                 \
                     : "d"(_pc_edx), "b"(_pc_ebx), "c"(_pc_ecx), [e] "S"(_pc_e), [g] "D"(_pc_g), \
                       [f] "i"(fn)                                                            \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

/* An indirect call through a function pointer held in memory (the controller at [driver+0xc]):
 * `call dword ptr [addr]`, Watcom convention, two register arguments. */
#define POD_CALL_INDIRECT2(slot_addr, a, b) ({                                                  \
    uint32_t _pc_eax = (uint32_t)(a), _pc_edx = (uint32_t)(b);                                \
    __asm__ volatile("call *(%[s])" : "+a"(_pc_eax) : "d"(_pc_edx), [s] "r"(slot_addr)          \
                     : "memory", "cc");                                                       \
    (int32_t)_pc_eax; })

#endif /* POD_CALL_H */
