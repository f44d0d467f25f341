// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vm_imds_fake PORT DIR [silent-put]: a fake EC2 instance metadata service
 * speaking IMDSv2 only, on 127.0.0.1:PORT, for tests/vm/42_monitor.sh.
 *
 *   PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds: N
 *       (1..21600)                      200, the session token as body
 *   GET PATH with X-aws-ec2-metadata-token: <that token>
 *                                       200 with DIR/PATH, 404 without
 *   a GET without the token (or a wrong one)  401
 *   anything else                       400 or 405
 *
 * With silent-put it plays an instance seen from a container behind the
 * default PUT response hop limit of 1: a token PUT is never answered (its
 * connection stays open until the next one comes, logged with status "-"),
 * and GETs are served without a token (IMDSv1).
 *
 * One connection at a time, one request per connection (the reply says
 * Connection: close). Each request is logged on stdout as
 * "<METHOD> <PATH> <STATUS>". Runs until killed; not a test program.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOKEN "AQAEAFakeSessionToken0123456789=="

static const char *dir;
static int silent_put;

/* The value of header @name in the request head @req (NUL-terminated,
 * CRLF lines), copied to @out; 0 if absent. */
static int header(const char *req, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	const char *p = strstr(req, "\r\n");

	while (p && p[2] && !(p[2] == '\r' && p[3] == '\n')) {
		const char *line = p + 2, *end = strstr(line, "\r\n");

		if (!end)
			return 0;
		if ((size_t)(end - line) > n && line[n] == ':' && !strncasecmp(line, name, n)) {
			const char *v = line + n + 1;
			size_t len;

			while (*v == ' ' || *v == '\t')
				v++;
			len = (size_t)(end - v);
			if (len >= size)
				len = size - 1;
			memcpy(out, v, len);
			out[len] = 0;
			return 1;
		}
		p = end;
	}
	return 0;
}

static void reply(int fd, int status, const char *body, size_t len)
{
	char head[256];
	const char *reason = status == 200 ? "OK" : status == 404 ? "Not Found" :
			     status == 401 ? "Unauthorized" : status == 405 ? "Method Not Allowed" :
			     "Bad Request";
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, reason, len);

	if (write(fd, head, (size_t)n) != n || (len && write(fd, body, len) != (ssize_t)len))
		perror("vm_imds_fake: write");
}

/* Serve the request on @fd; 1 if @fd must stay open (an unanswered PUT). */
static int serve(int fd)
{
	char req[8192], method[16], path[1024], v[256], file[2048], body[4096];
	size_t got = 0;
	int status;
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (got + 1 >= sizeof(req))
			return 0;
		n = read(fd, req + got, sizeof(req) - 1 - got);
		if (n <= 0)
			return 0;
		got += (size_t)n;
		req[got] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (sscanf(req, "%15s %1023s HTTP/1.", method, path) != 2) {
		printf("? ? 400\n");
		fflush(stdout);
		reply(fd, 400, "", 0);
		return 0;
	}
	if (silent_put && !strcmp(method, "PUT")) {
		printf("%s %s -\n", method, path);
		fflush(stdout);
		return 1;
	}
	if (!strcmp(method, "PUT") && !strcmp(path, "/latest/api/token")) {
		long ttl = header(req, "X-aws-ec2-metadata-token-ttl-seconds", v, sizeof(v)) ?
			   strtol(v, NULL, 10) : 0;

		status = ttl >= 1 && ttl <= 21600 ? 200 : 400;
		if (status == 200) {
			strcpy(body, TOKEN);
			len = strlen(TOKEN);
		}
	} else if (!strcmp(method, "GET")) {
		if (!silent_put &&
		    (!header(req, "X-aws-ec2-metadata-token", v, sizeof(v)) || strcmp(v, TOKEN))) {
			status = 401;
		} else if (strncmp(path, "/latest/", 8) || strstr(path, "..")) {
			status = 404;
		} else {
			FILE *f;

			snprintf(file, sizeof(file), "%s%s", dir, path);
			f = fopen(file, "r");
			status = 404;
			if (f) {
				len = fread(body, 1, sizeof(body), f);
				status = 200;
				fclose(f);
			}
		}
	} else {
		status = 405;
	}
	/* logged before the answer: whoever got it may count the log at once */
	printf("%s %s %d\n", method, path, status);
	fflush(stdout);
	reply(fd, status, body, status == 200 ? len : 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	int one = 1, s, held = -1;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "silent-put"))) {
		fprintf(stderr, "usage: vm_imds_fake PORT DIR [silent-put]\n");
		return 2;
	}
	dir = argv[2];
	silent_put = argc == 4;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0) {
		perror("vm_imds_fake: socket");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 8)) {
		perror("vm_imds_fake: bind/listen");
		return 1;
	}
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		if (held >= 0)
			close(held);
		held = -1;
		if (serve(c))
			held = c;
		else
			close(c);
	}
}
