/* The floor of reading TREC files: a minimal field splitter, for bench_parse_floor.py.
 *
 *     cc -O2 -o field_splitter field_splitter.c && ./field_splitter qrels run
 *
 * Reads each file in blocks of 8 MiB with read(2) and finds, byte by byte, where every field
 * of every line starts and ends (fields separated by spaces or tabs, lines by LF), as any
 * reader of the format must. It parses no number, builds no table, checks nothing: what a
 * reader does beyond this loop is what ragmeter's evaluation adds to it. A checksum of the
 * fields' lengths and positions is printed so that the compiler cannot drop the loop.
 * Prints: lines, fields, checksum (one line, space-separated). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (8u << 20)

int main(int argc, char **argv) {
    static unsigned char buf[BLOCK];
    unsigned long long lines = 0, fields = 0, checksum = 0;
    for (int a = 1; a < argc; a++) {
        int fd = open(argv[a], O_RDONLY);
        if (fd < 0) {
            perror(argv[a]);
            return 1;
        }
        int in_field = 0;
        unsigned long long field_len = 0, field_no = 0;
        for (;;) {
            ssize_t n = read(fd, buf, BLOCK);
            if (n < 0) {
                perror(argv[a]);
                return 1;
            }
            if (n == 0) {
                break;
            }
            for (ssize_t i = 0; i < n; i++) {
                unsigned char c = buf[i];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    if (in_field) {
                        /* A field ends: its number on the line and its length. */
                        checksum += field_no * 31 + field_len;
                        fields++;
                        field_no++;
                        in_field = 0;
                    }
                    if (c == '\n') {
                        lines++;
                        field_no = 0;
                    }
                } else {
                    if (!in_field) {
                        in_field = 1;
                        field_len = 0;
                    }
                    field_len++;
                }
            }
        }
        if (in_field) {
            checksum += field_no * 31 + field_len;
            fields++;
        }
        close(fd);
    }
    printf("%llu %llu %llu\n", lines, fields, checksum);
    return 0;
}
