/* fixmul_watcom: fixmul_c in Watcom's register convention (a in eax, b in edx, result in eax; every
 * other register preserved), the convention POD's routines use. */
        .intel_syntax noprefix
        .text
        .globl _fixmul_watcom
_fixmul_watcom:
        push ecx
        push edx
        push edx                /* b */
        push eax                /* a */
        call _fixmul_c
        add esp, 8
        pop edx
        pop ecx
        ret
