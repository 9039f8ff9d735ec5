#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned log_topics;
static FILE *log_file;

static const struct {
   const char *name;
   unsigned bits;
} topic_names[] = {
   {"api", KILN_LOG_API},         {"queue", KILN_LOG_QUEUE},
   {"mem", KILN_LOG_MEM},         {"compile", KILN_LOG_COMPILE},
   {"pipe", KILN_LOG_PIPE},       {"warn", KILN_LOG_WARN},
   {"bounds", KILN_LOG_BOUNDS},   {"all", ~0u},
};

static void log_init(void)
{
   const char *env = getenv("KILN_DEBUG");
   log_topics = KILN_LOG_WARN | KILN_LOG_BOUNDS;
   if (env) {
      char buf[256];
      snprintf(buf, sizeof(buf), "%s", env);
      for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
           tok = strtok_r(NULL, ",", &save)) {
         for (size_t i = 0; i < sizeof(topic_names) / sizeof(topic_names[0]); i++)
            if (!strcmp(tok, topic_names[i].name))
               log_topics |= topic_names[i].bits;
      }
   }
   const char *path = getenv("KILN_LOG");
   if (log_file && log_file != stderr)
      fclose(log_file);
   log_file = path ? fopen(path, "a") : NULL;
   if (!log_file)
      log_file = stderr;
}

void kiln_log_reset(void)
{
   pthread_once(&log_once, log_init);
   pthread_mutex_lock(&log_lock);
   log_init();
   pthread_mutex_unlock(&log_lock);
}

bool kiln_log_enabled(enum kiln_log_topic topic)
{
   pthread_once(&log_once, log_init);
   return (log_topics & topic) != 0;
}

void kiln_log(enum kiln_log_topic topic, const char *fmt, ...)
{
   if (!kiln_log_enabled(topic))
      return;
   const char *name = "?";
   for (size_t i = 0; i < sizeof(topic_names) / sizeof(topic_names[0]); i++)
      if (topic_names[i].bits == (unsigned)topic)
         name = topic_names[i].name;
   va_list ap;
   va_start(ap, fmt);
   pthread_mutex_lock(&log_lock);
   fprintf(log_file, "kiln: %s: ", name);
   vfprintf(log_file, fmt, ap);
   fputc('\n', log_file);
   fflush(log_file);
   pthread_mutex_unlock(&log_lock);
   va_end(ap);
}
