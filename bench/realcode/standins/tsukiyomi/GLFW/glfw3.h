// Stand-in for GLFW/glfw3.h (declarations that Tsukiyomi's src/main.cpp uses), for bench/realcode only.
// The real glfw3.h includes the system OpenGL 1.x header (<GL/gl.h> / <OpenGL/gl.h>);
// the few GL types, constants and functions main.cpp uses are declared here instead.
#ifndef _glfw3_h_
#define _glfw3_h_

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GLFWAPI
#define GLFWAPI
#endif
#ifndef GLAPI
#define GLAPI extern
#endif
#ifndef APIENTRY
#define APIENTRY
#endif

/* ---- OpenGL 1.x subset (normally from <GL/gl.h>) ---- */
typedef unsigned int  GLenum;
typedef unsigned char GLboolean;
typedef unsigned int  GLbitfield;
typedef void          GLvoid;
typedef int           GLint;
typedef unsigned int  GLuint;
typedef int           GLsizei;
typedef float         GLfloat;
typedef float         GLclampf;

#define GL_FALSE              0
#define GL_TRUE               1
#define GL_NO_ERROR           0
#define GL_COLOR_BUFFER_BIT   0x00004000
#define GL_TEXTURE_2D         0x0DE1
#define GL_UNSIGNED_BYTE      0x1401
#define GL_RGB                0x1907
#define GL_RGBA               0x1908
#define GL_LINEAR             0x2601
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_TEXTURE_MIN_FILTER 0x2801

GLAPI void   APIENTRY glClearColor(GLclampf red, GLclampf green, GLclampf blue, GLclampf alpha);
GLAPI void   APIENTRY glClear(GLbitfield mask);
GLAPI void   APIENTRY glViewport(GLint x, GLint y, GLsizei width, GLsizei height);
GLAPI GLenum APIENTRY glGetError(void);
GLAPI void   APIENTRY glTexParameteri(GLenum target, GLenum pname, GLint param);
GLAPI void   APIENTRY glTexImage2D(GLenum target, GLint level, GLint internalFormat,
                                   GLsizei width, GLsizei height, GLint border,
                                   GLenum format, GLenum type, const GLvoid* pixels);
GLAPI void   APIENTRY glGenTextures(GLsizei n, GLuint* textures);
GLAPI void   APIENTRY glBindTexture(GLenum target, GLuint texture);

/* ---- GLFW ---- */
#define GLFW_TRUE  1
#define GLFW_FALSE 0

#define GLFW_CONTEXT_VERSION_MAJOR 0x00022002
#define GLFW_CONTEXT_VERSION_MINOR 0x00022003
#define GLFW_OPENGL_FORWARD_COMPAT 0x00022006
#define GLFW_OPENGL_PROFILE        0x00022008

#define GLFW_OPENGL_ANY_PROFILE    0
#define GLFW_OPENGL_CORE_PROFILE   0x00032001
#define GLFW_OPENGL_COMPAT_PROFILE 0x00032002

typedef struct GLFWmonitor GLFWmonitor;
typedef struct GLFWwindow GLFWwindow;

GLFWAPI int         glfwInit(void);
GLFWAPI void        glfwTerminate(void);
GLFWAPI void        glfwWindowHint(int hint, int value);
GLFWAPI GLFWwindow* glfwCreateWindow(int width, int height, const char* title,
                                     GLFWmonitor* monitor, GLFWwindow* share);
GLFWAPI void        glfwDestroyWindow(GLFWwindow* window);
GLFWAPI int         glfwWindowShouldClose(GLFWwindow* window);
GLFWAPI void        glfwGetFramebufferSize(GLFWwindow* window, int* width, int* height);
GLFWAPI void        glfwPollEvents(void);
GLFWAPI double      glfwGetTime(void);
GLFWAPI void        glfwMakeContextCurrent(GLFWwindow* window);
GLFWAPI void        glfwSwapBuffers(GLFWwindow* window);
GLFWAPI void        glfwSwapInterval(int interval);

#ifdef __cplusplus
}
#endif

#endif /* _glfw3_h_ */
